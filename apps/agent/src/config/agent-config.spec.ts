import { parseMemorySize } from '@flotilla/cue';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { join } from 'node:path';
import { CertificateAuthority } from '../../../hub/src/agents/certificate-authority';
import { AgentConfigError, parseAgentConfig } from './agent-config';
import { parseDuration } from './duration';
import { testDir } from '../../../../test/harness/temp-dirs';

function problemsOf(argv: string[], env: Record<string, string> = {}): string[] {
  try {
    parseAgentConfig(argv, env);
  } catch (err) {
    if (err instanceof AgentConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['90s', 90_000],
    ['1m30s', 90_000],
    ['2h', 7_200_000],
    ['1.5s', 1500],
  ])('%s is %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', '10', 's', '1d', '-1s', '1m x'])('refuses %j', (text) => expect(parseDuration(text)).toBeUndefined());
});

describe('parseAgentConfig', () => {
  it('sizes the CUE pool from the container\'s memory limit: one worker within the manifest\'s 512Mi beside the agent', () => {
    const MiB = 1048576;
    // the limit deploy/agent/deployment.yaml gives the agent's container
    const deployment = parseAllDocuments(readFileSync(join(__dirname, '../../../../deploy/agent/deployment.yaml'), 'utf8')).map((d) => d.toJS()).find((d) => d?.kind === 'Deployment');
    const limit = parseMemorySize(deployment.spec.template.spec.containers[0].resources.limits.memory);
    expect(limit).toBe(512 * MiB);
    const manifest = { memoryLimitBytes: limit!, cpus: 4 };
    const { cue } = parseAgentConfig(['--kubeconfig=/k'], {}, manifest);
    expect(cue.poolSize).toBe(1);
    expect(cue.memoryLimitBytes + cue.workerHeapMb * MiB + 48 * MiB + 192 * MiB).toBeLessThanOrEqual(512 * MiB);
    expect(parseAgentConfig(['--kubeconfig=/k'], {}, { memoryLimitBytes: null, cpus: 4 }).cue).toMatchObject({ poolSize: 4, memoryLimitBytes: 1024 * MiB });
    expect(parseAgentConfig(['--kubeconfig=/k', '--cue-memory-reserve=128Mi'], {}, manifest).cue.memoryLimitBytes).toBeGreaterThan(cue.memoryLimitBytes);
    expect(problemsOf(['--kubeconfig=/k', '--cue-memory-reserve=lots'])).toEqual(['--cue-memory-reserve="lots" must be a size such as 192Mi or 1Gi']);
    expect(() => parseAgentConfig(['--kubeconfig=/k', '--cue-pool-size=2'], {}, manifest)).toThrow(/the CUE pool does not fit the container \(--cue-memory-reserve, --cue-pool-size\): the memory limit of 512 MiB leaves 320 MiB for CUE/);
  });

  it('gives the defaults with no flags: in-cluster, all namespaces, loopback probes, no election', () => {
    const c = parseAgentConfig([], { POD_NAME: 'agent-0', POD_NAMESPACE: 'flotilla-system' });
    expect(c).toMatchObject({
      kubeconfig: null,
      watchNamespace: null,
      httpHost: '127.0.0.1',
      httpPort: 9090,
      leaderElect: false,
      leaderElection: { namespace: 'flotilla-system', name: 'flotilla-agent', leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
      identity: 'agent-0',
      concurrency: 4,
      pollIntervalMs: 60_000,
      reconcileIntervalMs: 600_000,
      healthRecheckMs: 30_000,
      clusterName: '_default',
      owner: 'flotilla-agent',
    });
  });

  it('keeps CDEvents outboxes in the pod namespace unless told otherwise; in memory outside a pod', () => {
    expect(parseAgentConfig([], { POD_NAMESPACE: 'flotilla-system' }).cdevents).toEqual({ outboxNamespace: 'flotilla-system', retryInitialMs: 1000, retryMaxMs: 300_000, maxAttempts: 20, maxQueued: 1000 });
    expect(parseAgentConfig(['--kubeconfig=/k'], {}).cdevents.outboxNamespace).toBeNull();
    expect(parseAgentConfig(['--kubeconfig=/k', '--cdevents-outbox-namespace=ops', '--cdevents-retry-max=2s', '--cdevents-max-queued=5'], {}).cdevents).toMatchObject({ outboxNamespace: 'ops', retryMaxMs: 2000, maxQueued: 5 });
    expect(problemsOf(['--kubeconfig=/k', '--cdevents-outbox-namespace=Not_A_Namespace'])).toEqual(['--cdevents-outbox-namespace="Not_A_Namespace" is not a namespace name']);
  });

  it('reads both flag forms, $KUBECONFIG and booleans', () => {
    const c = parseAgentConfig(['--http-address=0.0.0.0:8081', '--concurrent', '8', '--leader-elect', '--leader-election-namespace=ops', '--poll-interval=5s', '--health-recheck-interval=3s', '--cluster-name', 'prod-1'], { KUBECONFIG: '/tmp/kc' });
    expect(c.healthRecheckMs).toBe(3_000);
    expect(c).toMatchObject({ kubeconfig: '/tmp/kc', httpHost: '0.0.0.0', httpPort: 8081, concurrency: 8, leaderElect: true, pollIntervalMs: 5000, clusterName: 'prod-1' });
    expect(c.leaderElection.namespace).toBe('ops');
  });

  it('runs standalone unless a hub is given; connected mode reads the bootstrap token and the hub CA from the environment', async () => {
    const ca = await CertificateAuthority.create();
    expect(parseAgentConfig([], {}).hub).toBeNull();
    const c = parseAgentConfig(['--hub-address=hub.example:9443', '--report-buffer=50', '--hub-reconnect-max=30s'], { POD_NAMESPACE: 'flotilla-system', FLOTILLA_HUB_BOOTSTRAP_TOKEN: 'flb_x', FLOTILLA_HUB_CA: ca.certPem });
    expect(c.hub).toEqual({ address: 'hub.example:9443', caPem: ca.certPem, identitySecret: { namespace: 'flotilla-system', name: 'flotilla-agent-identity' }, bootstrapToken: 'flb_x', reportBuffer: 50, heartbeatMs: 10_000, reconnectMaxMs: 30_000, selfDeployment: { namespace: 'flotilla-system', name: 'flotilla-agent' } });
    // or the CA from a file
    const dir = testDir('agent-ca-');
    writeFileSync(join(dir, 'ca.pem'), ca.certPem);
    expect(parseAgentConfig(['--hub-address=hub.example:9443', `--hub-ca-file=${join(dir, 'ca.pem')}`], { POD_NAMESPACE: 'x' }).hub?.caPem).toBe(ca.certPem);
    expect(() => parseAgentConfig(['--hub-address=nope'], {})).toThrow(AgentConfigError);
    try {
      parseAgentConfig(['--hub-address=nope'], {});
    } catch (err) {
      expect((err as AgentConfigError).problems).toEqual([
        '--hub-address="nope" must be host:port',
        '--hub-address outside a pod needs --hub-identity-secret=<namespace>/<name>',
        '--hub-address needs the hub\'s agent CA: $FLOTILLA_HUB_CA (the install manifest sets it) or --hub-ca-file=<PEM file>',
      ]);
    }
    // its own Deployment: the install's by default in a pod, none outside one unless named
    expect(parseAgentConfig(['--hub-address=h:1', '--hub-identity-secret=a/b'], { FLOTILLA_HUB_CA: ca.certPem }).hub?.selfDeployment).toBeNull();
    expect(parseAgentConfig(['--hub-address=h:1', '--hub-identity-secret=a/b', '--self-deployment=ops/agent'], { FLOTILLA_HUB_CA: ca.certPem }).hub?.selfDeployment).toEqual({ namespace: 'ops', name: 'agent' });
    expect(problemsOf(['--hub-address=h:1', '--self-deployment=agent'], { POD_NAMESPACE: 'x', FLOTILLA_HUB_CA: ca.certPem })).toEqual(['--self-deployment="agent" must be <namespace>/<name>']);
    // a certificate that is no CA, and a file that is not there
    const leaf = await ca.issueServing(['x'], 60_000);
    expect(problemsOf(['--hub-address=h:1'], { POD_NAMESPACE: 'x', FLOTILLA_HUB_CA: leaf.pem })).toEqual(['$FLOTILLA_HUB_CA: not a PEM CA certificate']);
    expect(problemsOf(['--hub-address=h:1', `--hub-ca-file=${join(dir, 'none.pem')}`], { POD_NAMESPACE: 'x' })[0]).toMatch(/^--hub-ca-file=.*none\.pem: cannot read it/);
  });

  it('lists every problem at once', () => {
    const problems = problemsOf(['--concurrent=0', '--poll-interval=soon', '--renew-deadline=20s', '--bogus', 'stray', '--owner=a/b', '--http-address=nope', '--log-level=loud']);
    expect(problems).toEqual([
      'unknown flag --bogus',
      'unexpected argument "stray" (flags look like --name=value)',
      '--http-address="nope" must be host:port (port 0 picks a free one)',
      '--renew-deadline (20s) must be below --lease-duration (15s)',
      '--owner="a/b" must be a label value (63 characters of letters, digits, -, _ and .)',
      '--log-level="loud" must be debug, info, warn or error',
      '--concurrent="0" must be a whole number from 1 to 64',
      '--poll-interval="soon" is not a duration (e.g. 30s, 1m30s, 500ms)',
    ]);
  });

  it('needs a Lease namespace for leader election outside a pod', () => {
    expect(problemsOf(['--leader-elect', '--kubeconfig=/tmp/kc'])).toEqual(['--leader-elect outside a pod needs --leader-election-namespace']);
  });

  it('refuses a flag given twice and a value-less flag', () => {
    expect(problemsOf(['--namespace=a', '--namespace=b', '--cache-dir'])).toEqual(['--namespace is given more than once', '--cache-dir needs a value']);
  });
});

describe('the CDEvents receiver settings', () => {
  it('has none by default, and reads --events-address with the secrets from the environment', () => {
    expect(parseAgentConfig([], {}).events).toBeNull();
    expect(parseAgentConfig(['--events-address=:8091'], { FLOTILLA_EVENTS_SECRETS: 'one-secret-0123456789, two-secret-0123456789' }).events).toEqual({ host: '0.0.0.0', port: 8091, secrets: ['one-secret-0123456789', 'two-secret-0123456789'] });
  });

  it('refuses a receiver without secrets, with a short one, or on a bad address', () => {
    expect(problemsOf(['--events-address=127.0.0.1:8091'])).toEqual(['--events-address needs at least one shared secret in $FLOTILLA_EVENTS_SECRETS (comma-separated)']);
    expect(problemsOf(['--events-address=127.0.0.1:8091'], { FLOTILLA_EVENTS_SECRETS: 'short' })).toEqual(['$FLOTILLA_EVENTS_SECRETS: every secret must be at least 16 characters']);
    expect(problemsOf(['--events-address=nowhere'], { FLOTILLA_EVENTS_SECRETS: 'one-secret-0123456789' })).toEqual(['--events-address="nowhere" must be host:port (port 0 picks a free one)']);
  });
});

describe('the egress settings', () => {
  it('refuses metadata and link-local by default and allows the pod\'s loopback', () => {
    expect(parseAgentConfig([], { POD_NAMESPACE: 'flotilla-system' }).egress).toEqual({ allow: [], deny: [], allowLoopback: true });
  });

  it('reads the lists and names a bad entry with its flag', () => {
    expect(parseAgentConfig(['--egress-allow=registry.corp.example, 100.64.0.0/10', '--egress-deny=127.0.0.0/8'], { POD_NAMESPACE: 'x' }).egress).toEqual({ allow: ['registry.corp.example', '100.64.0.0/10'], deny: ['127.0.0.0/8'], allowLoopback: true });
    expect(problemsOf(['--egress-deny=10.0.0.0/99'], { POD_NAMESPACE: 'x' })).toEqual(['--egress-deny: egress policy entry "10.0.0.0/99": the prefix length must be an integer from 0 to 32']);
  });
});
