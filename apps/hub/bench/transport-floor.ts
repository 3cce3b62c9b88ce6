// The transport floor of bench:agents, a process of its own: the agent
// service on grpc-js with the hub's server options and TLS (a serving
// certificate from the same agent CA, client certificates verified), which
// answers each Hello with an empty assignment set and otherwise only holds the
// stream. What one agent costs here, it costs any hub built on grpc-js before
// the hub's own work.
// usage: transport-floor.ts <port> <agent CA certificate file> <agent CA key file>
import { AGENT_SERVICE_DEFINITION, type ConnectRequest, type ConnectResponse } from '@flotilla/agent-protocol';
import { Server, type ServerDuplexStream, status } from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';
import { AGENT_SERVER_OPTIONS } from '../src/agents/agent-server-options';
import { CertificateAuthority } from '../src/agents/certificate-authority';
import { ServingIdentity } from '../src/agents/serving-identity';

async function main(): Promise<void> {
  const [port, caCertFile, caKeyFile] = process.argv.slice(3);
  if (!port || !caCertFile || !caKeyFile) throw new Error('usage: transport-floor.ts <port> <agent CA certificate file> <agent CA key file>');
  const ca = await CertificateAuthority.load(readFileSync(caCertFile, 'utf8'), readFileSync(caKeyFile, 'utf8'));
  const serving = new ServingIdentity(ca, ['127.0.0.1', 'localhost']);
  await serving.refresh();
  const server = new Server(AGENT_SERVER_OPTIONS);
  server.addService(AGENT_SERVICE_DEFINITION, {
    register: (_call: unknown, done: (err: { code: status; details: string }) => void) => done({ code: status.UNIMPLEMENTED, details: 'the transport floor registers nobody' }),
    connect: (stream: ServerDuplexStream<ConnectRequest, ConnectResponse>) => {
      // as the hub: no stream without a verified client certificate
      if (!stream.getAuthContext().sslPeerCertificate?.raw) {
        stream.emit('error', { code: status.UNAUTHENTICATED, details: 'no client certificate' });
        return;
      }
      let greeted = false;
      stream.on('data', (m: ConnectRequest) => {
        if (greeted || m.body?.$case !== 'hello') return;
        greeted = true;
        stream.write({ body: { $case: 'assignments', value: { assignments: [] } } });
      });
    },
  });
  await new Promise<number>((resolve, reject) => server.bindAsync(`127.0.0.1:${port}`, serving.credentials(), (err, p) => (err ? reject(err) : resolve(p))));
  process.on('SIGTERM', () => {
    server.forceShutdown();
    process.exit(0);
  });
  console.log('transport floor listening');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
