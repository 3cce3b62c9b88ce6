import type { ConnectRequest } from './index';
import { AGENT_PROTOCOL_LIMITS, describeOversized, fitText, oversizedField, oversizedRegisterField } from './index';

const report = { targetId: '0b6f1d6e-6a8e-4a55-9d0b-5c1c3f1f0a11', generation: 1, reportId: '4e0e3c8a-1f3c-4f7e-9d55-0c1a2b3c4d5e', reportJson: '{}' };
const hello = (over: Partial<{ agentVersion: string; kubeVersion: string; bufferedReports: (typeof report)[] }> = {}): ConnectRequest => ({
  body: { $case: 'hello', value: { agentVersion: '0.1.0', kubeVersion: 'v1.36.0', lastAppliedGeneration: 0, bufferedReports: [report], ...over } },
});

describe('oversizedField', () => {
  it('passes what a real agent sends', () => {
    expect(oversizedField(hello())).toBeUndefined();
    expect(oversizedField({ body: { $case: 'report', value: report } })).toBeUndefined();
    expect(oversizedField({ body: { $case: 'heartbeat', value: { sentAt: new Date() } } })).toBeUndefined();
    const event = { targetId: report.targetId, type: 'Warning', reason: 'ReconciliationFailed', message: 'x'.repeat(16 * 1024), revision: `v1@sha256:${'a'.repeat(64)}`, component: 'app', instance: 'web', namespace: 'apps', time: undefined };
    expect(oversizedField({ body: { $case: 'event', value: event } })).toBeUndefined();
    expect(oversizedField({ body: { $case: 'upgradeResult', value: { image: `ghcr.io/flotilla-dev/flotilla-agent:0.2.0@sha256:${'a'.repeat(64)}`, error: '' } } })).toBeUndefined();
  });

  it('names the first field over its bound, with its size and the bound', () => {
    expect(oversizedField(hello({ agentVersion: 'v'.repeat(65) }))).toEqual({ field: 'hello.agent_version', bytes: 65, limit: 64 });
    // counted in UTF-8 bytes: 22 three-byte characters are 66 bytes
    expect(oversizedField(hello({ kubeVersion: '€'.repeat(22) }))).toEqual({ field: 'hello.kube_version', bytes: 66, limit: 64 });
    expect(oversizedField(hello({ bufferedReports: [report, { ...report, reportId: 'r'.repeat(100) }] }))).toEqual({ field: 'hello.buffered_reports[1].report_id', bytes: 100, limit: 64 });
    expect(oversizedField({ body: { $case: 'report', value: { ...report, targetId: 't'.repeat(1000) } } })?.field).toBe('report.target_id');
    expect(oversizedField({ body: { $case: 'renew', value: { csrPem: 'c'.repeat(9000) } } })?.field).toBe('renew.csr_pem');
    expect(oversizedField({ body: { $case: 'diff', value: { requestId: 'r', unsupported: false, diffJson: '', error: 'e'.repeat(17 * 1024) } } })?.field).toBe('diff.error');
    expect(oversizedField({ body: { $case: 'upgradeResult', value: { image: 'i'.repeat(513), error: '' } } })).toEqual({ field: 'upgrade_result.image', bytes: 513, limit: 512 });
    expect(oversizedField({ body: { $case: 'upgradeResult', value: { image: 'x', error: 'e'.repeat(17 * 1024) } } })?.field).toBe('upgrade_result.error');
  });

  it('refuses a Hello with more buffered reports than one may carry', () => {
    const many = Array.from({ length: AGENT_PROTOCOL_LIMITS.maxBufferedReports + 1 }, () => report);
    const o = oversizedField(hello({ bufferedReports: many }));
    expect(o).toEqual({ field: 'hello.buffered_reports (count)', bytes: 1001, limit: 1000 });
    expect(describeOversized(o!)).toBe('hello.buffered_reports (count) is 1001, at most 1000 are accepted');
  });

  it('checks registrations too', () => {
    expect(oversizedRegisterField({ bootstrapToken: 'flb_x', agentVersion: '0.1.0', csrPem: 'pem' })).toBeUndefined();
    expect(oversizedRegisterField({ bootstrapToken: 'flb_x', agentVersion: 'x'.repeat(1 << 20), csrPem: 'pem' })).toEqual({ field: 'agent_version', bytes: 1 << 20, limit: 64 });
  });
});

describe('fitText', () => {
  it('keeps a text that fits and cuts one that does not, on whole characters, within the bound', () => {
    expect(fitText('short', 64)).toBe('short');
    const cut = fitText('€'.repeat(100), 64);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(64);
    expect(cut.endsWith(' …(cut)')).toBe(true);
    expect(cut.startsWith('€'.repeat(10))).toBe(true);
    expect(cut).not.toContain('\ufffd');
  });
});
