import { AgentServiceService, Assignment, ConnectResponse } from './index';
import { AGENT_SERVICE_DEFINITION, serializeConnectResponse } from './connect-response-codec';

const generated = AgentServiceService.connect.responseSerialize;

describe('the Connect stream serializer that keeps one writer', () => {
  const small: ConnectResponse = { body: { $case: 'heartbeat', value: { sentAt: new Date(1_700_000_000_000) } } };
  const assignment = (i: number, extra: Partial<Assignment> = {}): ConnectResponse => ({
    body: { $case: 'change', value: { change: { $case: 'assignment', value: Assignment.fromPartial({ targetId: `t-${i}`, generation: i, projectName: 'shop', digest: `sha256:${'ab'.repeat(32)}`, clusterName: `edge-${i}`, annotations: { team: 'web' }, ...extra }) } } },
  });
  const large = assignment(3, {
    registryCredentials: { credentials: { $case: 'dockerConfigJson', value: JSON.stringify({ auths: { 'registry.example': { auth: 'x'.repeat(20_000) } } }) } },
  });

  it('gives the bytes the generated serializer gives, whatever size came before', () => {
    // a large message grows the shared writer; the small ones after it must not carry its bytes
    for (const message of [assignment(1), large, small, assignment(2), large, assignment(40_000)]) {
      const bytes = serializeConnectResponse(message);
      expect(Buffer.compare(bytes, generated(message))).toBe(0);
      expect(ConnectResponse.decode(bytes)).toEqual(ConnectResponse.decode(generated(message)));
    }
  });

  it('returns bytes that later messages do not overwrite', () => {
    const first = serializeConnectResponse(assignment(1));
    const copy = Buffer.from(first);
    serializeConnectResponse(large);
    serializeConnectResponse(assignment(2));
    expect(Buffer.compare(first, copy)).toBe(0);
  });

  it('is the serializer the service definition servers register uses, for Connect only', () => {
    expect(AGENT_SERVICE_DEFINITION.connect.responseSerialize).toBe(serializeConnectResponse);
    expect(AGENT_SERVICE_DEFINITION.register).toBe(AgentServiceService.register);
    expect(AGENT_SERVICE_DEFINITION.connect.path).toBe(AgentServiceService.connect.path);
  });
});
