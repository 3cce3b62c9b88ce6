// Client-certificate auth and header framing over real TLS, against a small local HTTPS server
// (the harness API server exposes token identities only; its CA key stays in the harness).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClusterConnection, type RequestEvent } from './connection';
import { KubeApiError } from './errors';

const dir = mkdtempSync(join(tmpdir(), 'kube-tls-'));
const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
const pem = (f: string) => readFileSync(join(dir, f), 'utf8');

function issue(name: string, subject: string, ext: string): void {
  ssl('req', '-new', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
  writeFileSync(join(dir, `${name}.ext`), ext);
  ssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1', '-out', `${name}.crt`, '-extfile', `${name}.ext`);
}

let server: Server;
let url: string;

beforeAll(async () => {
  ssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=test-ca', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign');
  issue('server', '/CN=server', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  issue('client', '/O=system:masters/CN=cert-user', 'extendedKeyUsage=clientAuth\n');
  server = createServer({ key: pem('server.key'), cert: pem('server.crt'), ca: pem('ca.crt'), requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    const authorized = (req.socket as TLSSocket).authorized;
    const groups: string[] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i].toLowerCase() === 'impersonate-group') groups.push(req.rawHeaders[i + 1]);
    // /whoami answers anyone (to inspect headers); everything else needs a client certificate
    // (answers are Status objects, as a real API server's errors are)
    res.writeHead(authorized || req.url === '/whoami' ? 200 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', cn: authorized ? peer.subject?.CN : undefined, user: req.headers['impersonate-user'], groups, auth: req.headers.authorization ?? null, message: authorized ? 'ok' : 'no client certificate' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address();
  url = `https://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('ClusterConnection over TLS', () => {
  it('authenticates with a client certificate and sends no bearer token', async () => {
    const conn = ClusterConnection.create({ server: url, caData: pem('ca.crt'), clientCertData: pem('client.crt'), clientKeyData: pem('client.key') });
    try {
      const body = await conn.request<{ cn: string; auth: string | null }>({ method: 'GET', path: '/whoami' });
      expect(body).toMatchObject({ cn: 'cert-user', auth: null });
    } finally {
      await conn.close();
    }
  });

  it('sends each impersonated group on its own header line', async () => {
    const conn = ClusterConnection.create({ server: url, caData: pem('ca.crt'), token: 't' });
    try {
      const body = await conn
        .impersonate({ user: 'system:serviceaccount:a:b', groups: ['g1', 'g2,with-comma', 'g3'] })
        .request<{ user: string; groups: string[]; auth: string }>({ method: 'GET', path: '/whoami' });
      expect(body).toEqual(expect.objectContaining({ user: 'system:serviceaccount:a:b', groups: ['g1', 'g2,with-comma', 'g3'], auth: 'Bearer t' }));
    } finally {
      await conn.close();
    }
  });

  it('fails with the status when the server wants a certificate it did not get', async () => {
    const events: RequestEvent[] = [];
    const conn = ClusterConnection.create({ server: url, caData: pem('ca.crt'), token: 't' }, { onRequest: (e) => events.push(e) });
    try {
      const err = await conn.request({ method: 'GET', path: '/api/v1/namespaces/x/secrets/y', subject: 'Secret/x/y' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KubeApiError);
      expect((err as Error).message).toBe('Secret/x/y: GET /api/v1/namespaces/x/secrets/y: 401: no client certificate');
      expect(events).toEqual([expect.objectContaining({ method: 'GET', statusCode: 401, pathTemplate: '/api/v1/namespaces/{namespace}/secrets/{name}' })]);
    } finally {
      await conn.close();
    }
  });

  it('rejects a server certificate from another CA unless told to skip verification', async () => {
    const conn = ClusterConnection.create({ server: url, token: 't' });
    const insecure = ClusterConnection.create({ server: url, token: 't', insecureSkipTLSVerify: true });
    try {
      await expect(conn.request({ method: 'GET', path: '/x' })).rejects.toMatchObject({ statusCode: 0 });
      await expect(insecure.request({ method: 'GET', path: '/x' })).rejects.toMatchObject({ statusCode: 401 });
    } finally {
      await conn.close();
      await insecure.close();
    }
  });
});
