// deploy/charts/flotilla-hub rendered by the real Helm (test/helm/build.mjs),
// linted, and its objects applied to the harness API server with a server-side
// dry run; the same dry run for deploy/agent/ (manifests and CRD).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { KubeApiError, type KubeObject, type ObjectClient } from '@flotilla/kube';
import { adminClient, DEPLOY_DIR, loadInstallManifests } from '../../apps/agent/test/install';
import { kubeconfigYaml } from '../../apps/hub/test/kubeconfig';
import { harnessEnv } from '../harness/env';
import { CHART_DIR, dryRunApply, helm, render, templateArgs, type RenderOptions } from './helm';

const PRODUCTION = join(CHART_DIR, 'examples', 'production.yaml');
const id = (o: KubeObject) => `${o.kind}/${o.metadata.name}`;
const byKind = (objects: KubeObject[], kind: string) => objects.filter((o) => o.kind === kind);

interface Container {
  name: string;
  env: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  ports: Array<{ name: string; containerPort: number }>;
  securityContext: Record<string, unknown>;
  volumeMounts: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
  readinessProbe: { httpGet: { path: string } };
  livenessProbe: { httpGet: { path: string } };
}
interface PodSpec {
  containers: Container[];
  securityContext: Record<string, unknown>;
  volumes: Array<{ name: string; persistentVolumeClaim?: { claimName: string }; emptyDir?: object; secret?: { secretName: string; defaultMode: number } }>;
}
const deploymentOf = (objects: KubeObject[]) => {
  const [d] = byKind(objects, 'Deployment');
  return d as KubeObject & { spec: { replicas: number; strategy: { type: string }; template: { metadata: { annotations: Record<string, string> }; spec: PodSpec } } };
};
const envOf = (c: Container) => Object.fromEntries(c.env.map((e) => [e.name, e.value ?? e.valueFrom?.secretKeyRef]));

describe('flotilla-hub Helm chart (real Helm, real API server)', () => {
  const kube = harnessEnv().kube;
  let admin: ObjectClient;
  let home: string;
  let namespace: string;
  const opts = (o: Partial<RenderOptions> = {}): RenderOptions => ({ namespace, kubeVersion: kube.version, ...o });

  /** Dry-runs every object; returns the refusals (none expected). */
  async function dryRunAll(objects: KubeObject[]): Promise<string[]> {
    const refused: string[] = [];
    for (const obj of objects) {
      try {
        const answer = await dryRunApply(admin, obj);
        expect(answer.kind).toBe(obj.kind);
      } catch (err) {
        refused.push(`${id(obj)}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return refused;
  }

  beforeAll(async () => {
    admin = adminClient();
    home = mkdtempSync(join(tmpdir(), 'flotilla-helm-home-'));
    namespace = `hub-chart-${randomBytes(3).toString('hex')}`;
    // a dry run of a namespaced object needs its namespace to exist
    await admin.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }, { dryRun: false, force: true, fieldManager: 'flotilla-test' });
  });

  afterAll(async () => {
    if (namespace) await admin.delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace });
    await admin?.connection.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('passes helm lint --strict with the default and the production-like values', () => {
    for (const args of [[], ['--values', PRODUCTION]]) {
      const res = helm(['lint', '--strict', CHART_DIR, ...args], home);
      expect({ status: res.status, out: res.stdout + res.stderr }).toEqual({ status: 0, out: expect.stringContaining('0 chart(s) failed') });
    }
  });

  describe('default values: one replica on the embedded database', () => {
    let objects: KubeObject[];
    beforeAll(() => {
      objects = render(opts(), home);
    });

    it('renders the hub, its Services (API, agents), ServiceAccount, the database volume and the generated admin token\'s Secret', () => {
      expect(objects.map(id).sort()).toEqual([
        'Deployment/flotilla-hub',
        'PersistentVolumeClaim/flotilla-hub-data',
        'Secret/flotilla-hub-generated',
        'Service/flotilla-hub',
        'Service/flotilla-hub-grpc',
        'ServiceAccount/flotilla-hub',
      ]);
      const d = deploymentOf(objects);
      expect(d.spec.replicas).toBe(1);
      // without a public address, install manifests name the agents' Service inside the cluster
      expect(envOf(d.spec.template.spec.containers[0])).toMatchObject({ FLOTILLA_AGENT_PORT: '9443', FLOTILLA_AGENT_PUBLIC_ADDRESS: `flotilla-hub-grpc.${namespace}.svc:9443` });
      // the embedded database admits one process: never two pods during a rollout
      expect(d.spec.strategy.type).toBe('Recreate');
      const pod = d.spec.template.spec;
      expect(pod.volumes.find((v) => v.name === 'data')?.persistentVolumeClaim?.claimName).toBe('flotilla-hub-data');
      const [hub] = pod.containers;
      expect(envOf(hub)).not.toHaveProperty('DATABASE_URL');
      // no admin token given: the chart's generated one, never one the hub would print; no metrics token without a ServiceMonitor
      expect(envOf(hub).FLOTILLA_ADMIN_TOKEN).toEqual({ name: 'flotilla-hub-generated', key: 'FLOTILLA_ADMIN_TOKEN' });
      expect(envOf(hub)).not.toHaveProperty('FLOTILLA_METRICS_TOKEN');
      const [generated] = byKind(objects, 'Secret') as Array<KubeObject & { data: Record<string, string> }>;
      expect(Object.keys(generated.data)).toEqual(['FLOTILLA_ADMIN_TOKEN']);
      expect(Buffer.from(generated.data.FLOTILLA_ADMIN_TOKEN, 'base64').toString()).toMatch(/^[A-Za-z0-9]{48}$/);
      expect(generated.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
      expect(hub.readinessProbe.httpGet.path).toBe('/readyz');
      expect(hub.livenessProbe.httpGet.path).toBe('/healthz');
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532 });
      expect(hub.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
      // the only writable paths: the data dir and /tmp
      expect(hub.volumeMounts.map((m) => m.mountPath).sort()).toEqual(['/tmp', '/var/lib/flotilla']);
    });

    it('is accepted by the API server (server-side dry run, strict field validation) and nothing is stored', async () => {
      expect(await dryRunAll(objects)).toEqual([]);
      expect(await admin.getOptional({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'flotilla-hub' })).toBeUndefined();
    });
  });

  describe('production-like values: three replicas on PostgreSQL', () => {
    let objects: KubeObject[];
    beforeAll(() => {
      objects = render(opts({ valuesFiles: [PRODUCTION] }), home);
    });

    it('renders the optional Services, the PodDisruptionBudget and the ServiceMonitor, and no volume claim', () => {
      expect(objects.map(id).sort()).toEqual([
        'Deployment/flotilla-hub',
        'PodDisruptionBudget/flotilla-hub',
        'Service/flotilla-hub',
        'Service/flotilla-hub-cdevents',
        'Service/flotilla-hub-grpc',
        'ServiceAccount/flotilla-hub',
        'ServiceMonitor/flotilla-hub',
      ]);
      const d = deploymentOf(objects);
      expect(d.spec.replicas).toBe(3);
      expect(d.spec.strategy.type).toBe('RollingUpdate');
      const [hub] = d.spec.template.spec.containers;
      expect(envOf(hub)).toMatchObject({
        DATABASE_URL: { name: 'flotilla-hub-database', key: 'DATABASE_URL' },
        FLOTILLA_ENCRYPTION_KEYS: { name: 'flotilla-hub-keys', key: 'FLOTILLA_ENCRYPTION_KEYS' },
        FLOTILLA_ADMIN_TOKEN: { name: 'flotilla-hub-admin', key: 'FLOTILLA_ADMIN_TOKEN' },
        FLOTILLA_SCHEDULER_CONCURRENCY: '16',
        FLOTILLA_EVENTS_PORT: '8081',
        FLOTILLA_AGENT_PORT: '9443',
        FLOTILLA_AGENT_PUBLIC_ADDRESS: 'agents.hub.example.com:443',
        FLOTILLA_EVENTS_SECRETS: { name: 'flotilla-hub-cdevents', key: 'FLOTILLA_EVENTS_SECRETS' },
        FLOTILLA_METRICS_TOKEN: { name: 'flotilla-hub-metrics', key: 'FLOTILLA_METRICS_TOKEN' },
      });
      // Prometheus scrapes with the very token the hub asks for
      const [monitor] = byKind(objects, 'ServiceMonitor') as Array<KubeObject & { spec: { endpoints: Array<{ path: string; authorization: unknown }> } }>;
      expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ path: '/metrics', authorization: { type: 'Bearer', credentials: { name: 'flotilla-hub-metrics', key: 'FLOTILLA_METRICS_TOKEN' } } })]);
      expect(hub.ports.map((p) => p.name)).toEqual(['http', 'grpc', 'cdevents']);
      expect(d.spec.template.spec.volumes.find((v) => v.name === 'data')?.emptyDir).toEqual({});
    });

    it('is accepted by the API server (ServiceMonitor aside: the harness serves no Prometheus Operator CRDs)', async () => {
      const served = objects.filter((o) => o.kind !== 'ServiceMonitor');
      expect(served).toHaveLength(objects.length - 1);
      expect(await dryRunAll(served)).toEqual([]);
    });
  });

  it('keeps inline secrets in its own Secret and rolls the pods when they change', async () => {
    const set = { 'database.url': 'postgres://hub:pw@db:5432/flotilla', 'encryptionKeys.value': `k1:${randomBytes(32).toString('base64')}`, replicaCount: '2' };
    const objects = render(opts({ set }), home);
    const secret = (byKind(objects, 'Secret') as Array<KubeObject & { data: Record<string, string> }>).find((o) => o.metadata.name === 'flotilla-hub')!;
    expect(Object.keys(secret.data).sort()).toEqual(['DATABASE_URL', 'FLOTILLA_ENCRYPTION_KEYS']);
    expect(Buffer.from(secret.data.DATABASE_URL, 'base64').toString()).toBe(set['database.url']);
    expect(envOf(deploymentOf(objects).spec.template.spec.containers[0]).DATABASE_URL).toEqual({ name: 'flotilla-hub', key: 'DATABASE_URL' });
    const checksum = (o: KubeObject[]) => deploymentOf(o).spec.template.metadata.annotations['checksum/secret'];
    expect(checksum(render(opts({ set: { ...set, 'database.url': 'postgres://hub:other@db:5432/flotilla' } }), home))).not.toBe(checksum(objects));
    expect(await dryRunAll(objects)).toEqual([]);
  });

  it('generates a metrics token for a ServiceMonitor when none is given, and keeps inline tokens in its own Secret', () => {
    const objects = render(opts({ set: { 'serviceMonitor.enabled': 'true' } }), home);
    const [generated] = byKind(objects, 'Secret') as Array<KubeObject & { data: Record<string, string> }>;
    expect(generated.metadata.name).toBe('flotilla-hub-generated');
    expect(Object.keys(generated.data).sort()).toEqual(['FLOTILLA_ADMIN_TOKEN', 'FLOTILLA_METRICS_TOKEN']);
    const ref = { name: 'flotilla-hub-generated', key: 'FLOTILLA_METRICS_TOKEN' };
    expect(envOf(deploymentOf(objects).spec.template.spec.containers[0]).FLOTILLA_METRICS_TOKEN).toEqual(ref);
    const [monitor] = byKind(objects, 'ServiceMonitor') as Array<KubeObject & { spec: { endpoints: Array<{ authorization: { credentials: unknown } }> } }>;
    expect(monitor.spec.endpoints[0].authorization.credentials).toEqual(ref);

    const inline = render(opts({ set: { 'metricsToken.value': 'scrape-0123456789abcdef', 'adminToken.value': 'admin-0123456789abcdef' } }), home);
    expect(byKind(inline, 'Secret').map((o) => o.metadata.name)).toEqual(['flotilla-hub']);
    const env = envOf(deploymentOf(inline).spec.template.spec.containers[0]);
    expect(env).toMatchObject({ FLOTILLA_METRICS_TOKEN: { name: 'flotilla-hub', key: 'FLOTILLA_METRICS_TOKEN' }, FLOTILLA_ADMIN_TOKEN: { name: 'flotilla-hub', key: 'FLOTILLA_ADMIN_TOKEN' } });
  });

  it('keeps the generated admin token across upgrades (a real install and upgrade against the API server)', async () => {
    const kubeconfig = join(home, 'kubeconfig');
    writeFileSync(kubeconfig, kubeconfigYaml({ server: kube.server, caData: kube.caData, token: kube.admin.token }), { mode: 0o600 });
    const install = () => helm(['upgrade', '--install', 'keeper', CHART_DIR, '--namespace', namespace, '--kubeconfig', kubeconfig, '--set', 'embeddedDatabase.persistence.enabled=false'], home);
    const tokenOf = async () => {
      const secret = (await admin.getOptional({ apiVersion: 'v1', kind: 'Secret', namespace, name: 'keeper-flotilla-hub-generated' })) as (KubeObject & { data: Record<string, string> }) | undefined;
      return secret?.data.FLOTILLA_ADMIN_TOKEN;
    };
    expect(install()).toMatchObject({ status: 0 });
    const first = await tokenOf();
    expect(first).toEqual(expect.any(String));
    expect(install()).toMatchObject({ status: 0 });
    expect(await tokenOf()).toBe(first);
    // helm template cannot look: it would have made another one, so the keeping is lookup's doing
    const [rendered] = byKind(render(opts({ release: 'keeper' }), home), 'Secret') as Array<KubeObject & { data: Record<string, string> }>;
    expect(rendered.data.FLOTILLA_ADMIN_TOKEN).not.toBe(first);
  });

  it('mounts the operator\'s agent CA from its Secret and points the hub at its files', async () => {
    const objects = render(opts({ set: { 'agentGrpc.caSecret': 'hub-agent-ca' } }), home);
    const spec = deploymentOf(objects).spec.template.spec;
    const [hub] = spec.containers;
    expect(envOf(hub)).toMatchObject({ FLOTILLA_AGENT_CA_CERT_FILE: '/etc/flotilla/agent-ca/tls.crt', FLOTILLA_AGENT_CA_KEY_FILE: '/etc/flotilla/agent-ca/tls.key' });
    expect(hub.volumeMounts).toContainEqual({ name: 'agent-ca', mountPath: '/etc/flotilla/agent-ca', readOnly: true });
    // readable by the pod's group (fsGroup), not by others
    expect(spec.volumes).toContainEqual({ name: 'agent-ca', secret: { secretName: 'hub-agent-ca', defaultMode: 0o440 } });
    expect(await dryRunAll(objects)).toEqual([]);
    // by default the hub makes its own CA: no files, no volume
    const plain = deploymentOf(render(opts(), home)).spec.template.spec;
    expect(Object.keys(envOf(plain.containers[0]))).not.toContain('FLOTILLA_AGENT_CA_CERT_FILE');
    expect(plain.volumes.map((v) => v.name)).not.toContain('agent-ca');
  });

  it('passes the agent image and auto-upgrade to the hub: the hub\'s own default and off unless set', () => {
    const plain = envOf(deploymentOf(render(opts(), home)).spec.template.spec.containers[0]);
    expect(plain).toMatchObject({ FLOTILLA_AGENT_AUTO_UPGRADE: 'off' });
    expect(Object.keys(plain)).not.toContain('FLOTILLA_AGENT_IMAGE');
    const set = { 'agentGrpc.agentImage': 'mirror.example/flotilla/agent:0.1.0', 'agentGrpc.autoUpgrade': 'true' };
    const env = envOf(deploymentOf(render(opts({ set }), home)).spec.template.spec.containers[0]);
    expect(env).toMatchObject({ FLOTILLA_AGENT_IMAGE: 'mirror.example/flotilla/agent:0.1.0', FLOTILLA_AGENT_AUTO_UPGRADE: 'on' });
  });

  it('passes the egress policy to the hub: loopback refused by default, lists joined', () => {
    const plain = envOf(deploymentOf(render(opts(), home)).spec.template.spec.containers[0]);
    expect(plain).toMatchObject({ FLOTILLA_EGRESS_ALLOW_LOOPBACK: 'off' });
    expect(Object.keys(plain)).not.toContain('FLOTILLA_EGRESS_ALLOW');
    const set = { 'config.egress.allow': '{10.0.0.0/8,*.corp.example}', 'config.egress.deny': '{10.1.0.0/16}', 'config.egress.allowLoopback': 'true' };
    const env = envOf(deploymentOf(render(opts({ set }), home)).spec.template.spec.containers[0]);
    expect(env).toMatchObject({ FLOTILLA_EGRESS_ALLOW: '10.0.0.0/8,*.corp.example', FLOTILLA_EGRESS_DENY: '10.1.0.0/16', FLOTILLA_EGRESS_ALLOW_LOOPBACK: 'on' });
    // an entry with a comma or a space would change the list's meaning: the schema refuses it
    const bad = helm(templateArgs(opts({ set: { 'config.egress.deny': '{a b}' } })), home);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('egress');
  });

  describe('refuses', () => {
    it.each([
      ['no database', {}, 'replicaCount=2 needs an external PostgreSQL: the embedded database (PGlite) serves a single replica only'],
      ['a database but no shared keys', { 'database.url': 'postgres://hub@db/flotilla' }, 'replicaCount=2 needs shared encryption keys'],
    ])('replicas > 1 with %s, with a clear message', (_case, set, message) => {
      const res = helm(templateArgs(opts({ set: { replicaCount: '2', ...set } })), home);
      expect(res.status).not.toBe(0);
      expect(res.stderr).toContain(message);
    });

    it('a CDEvents receiver without its shared secrets', () => {
      const res = helm(templateArgs(opts({ set: { 'cdevents.enabled': 'true' } })), home);
      expect(res.status).not.toBe(0);
      expect(res.stderr).toContain("cdevents.enabled needs the receiver's shared secrets");
    });

    it('replicas > 1 without a database from a values file too', () => {
      const file = join(home, 'two-replicas.yaml');
      writeFileSync(file, 'replicaCount: 2\nencryptionKeys:\n  existingSecret: keys\n');
      const res = helm(templateArgs(opts({ valuesFiles: [file] })), home);
      expect(res.status).not.toBe(0);
      expect(res.stderr).toContain('needs an external PostgreSQL');
    });

    it.each([
      ['replicaCount', '-1'],
      ['replicaCount', 'three'],
      ['image.pullPolicy', 'Sometimes'],
      ['image.digest', 'md5:abc'],
      ['database.url', 'mysql://hub@db/flotilla'],
      ['adminToken.value', 'short'],
      ['metricsToken.value', 'short'],
      ['encryptionKeys.value', 'not a key list'],
      ['config.logLevel', 'loud'],
      ['config.scheduler.tick', 'often'],
      ['service.port', '70000'],
      ['service.type', 'ExternalName'],
      ['replicas', '2'], // a typo of replicaCount: unknown keys are refused, not ignored
    ])('%s=%s (values.schema.json)', (key, value) => {
      const res = helm(templateArgs(opts({ set: { [key]: value } })), home);
      expect(res.status).not.toBe(0);
      expect(res.stderr).toContain("values don't meet the specifications of the schema");
      expect(res.stderr).toContain(key === 'replicas' ? "additional properties 'replicas' not allowed" : `/${key.replaceAll('.', '/')}`);
    });
  });

  describe('the Project CRD: one source, deploy/agent/crd.yaml', () => {
    const source = () => parse(readFileSync(join(DEPLOY_DIR, 'crd.yaml'), 'utf8')) as KubeObject;

    it('packages the very file the agent install applies, kept on uninstall', async () => {
      const [crd] = byKind(render(opts({ set: { 'projectCRD.install': 'true' } }), home), 'CustomResourceDefinition');
      const { metadata, ...rest } = crd;
      const { metadata: sourceMetadata, ...sourceRest } = source();
      expect(rest).toEqual(sourceRest);
      expect(metadata.name).toBe(sourceMetadata.name);
      expect(metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
      expect(await dryRunAll([crd])).toEqual([]);
    });

    it('is left out by default', () => {
      expect(byKind(render(opts(), home), 'CustomResourceDefinition')).toEqual([]);
    });
  });

  it('deploy/agent/ (manifests and CRD) is accepted by the API server (server-side dry run, strict field validation)', async () => {
    const objects = loadInstallManifests();
    const [ns] = byKind(objects, 'Namespace');
    // its objects need the namespace to exist; other specs install deploy/agent/ for real anyway
    await admin.apply(ns, { dryRun: false, force: true, fieldManager: 'flotilla-test' });
    expect(await dryRunAll(objects)).toEqual([]);
  });

  it('an object the API server refuses fails the dry run (the check is not vacuous)', async () => {
    const [d] = byKind(render(opts(), home), 'Deployment');
    const bad = { ...d, spec: { ...(d.spec as object), replicass: 1 } } as KubeObject;
    await expect(dryRunApply(admin, bad)).rejects.toThrow(KubeApiError);
    await expect(dryRunApply(admin, bad)).rejects.toThrow(/replicass/);
  });
});
