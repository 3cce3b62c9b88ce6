import { Assignment, ConnectRequest, ConnectResponse } from './index';

describe('agent protocol messages', () => {
  it('round-trips a hello with a buffered report and an assignment with its pinned digest', () => {
    const hello: ConnectRequest = {
      body: { $case: 'hello', value: { agentVersion: '0.1.0', kubeVersion: 'v1.36.0', lastAppliedGeneration: 7, bufferedReports: [{ targetId: 't1', generation: 7, reportId: 'r1', reportJson: '{"ok":true}' }] } },
    };
    expect(ConnectRequest.decode(ConnectRequest.encode(hello).finish())).toEqual(hello);

    const assignment = Assignment.fromPartial({ targetId: 't1', generation: 8, projectName: 'p', digest: 'sha256:ab', annotations: { a: 'b' }, intervalSeconds: 60 });
    const set: ConnectResponse = { body: { $case: 'assignments', value: { assignments: [assignment] } } };
    const decoded = ConnectResponse.decode(ConnectResponse.encode(set).finish());
    expect(decoded.body?.$case === 'assignments' && decoded.body.value.assignments[0]).toMatchObject({ digest: 'sha256:ab', generation: 8, annotations: { a: 'b' }, registryCredentials: undefined });
  });

  it('refuses bytes that are not a message of the contract', () => {
    expect(() => ConnectRequest.decode(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff]))).toThrow();
  });
});
