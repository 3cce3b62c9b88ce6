import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';

/** Where deploy/ is: beside the sources, or beside dist/ when the hub runs compiled. */
function deployDir(): string {
  for (let dir = __dirname, i = 0; i < 8; i++, dir = dirname(dir)) {
    if (existsSync(join(dir, 'deploy', 'agent', 'crd.yaml'))) return join(dir, 'deploy');
  }
  throw new Error('deploy/agent is not beside the hub: the install manifest cannot be made (ship deploy/ with the hub)');
}

type Doc = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; [k: string]: unknown };

function load(dir: string): Doc[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS() as Doc | null))
    .filter((d): d is Doc => d !== null);
}

// the order `kubectl apply -f` needs in one pass: the CRD and namespace before what lives in them
const ORDER = ['Namespace', 'CustomResourceDefinition', 'ServiceAccount', 'Secret', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'Deployment'];
const rank = (kind: string) => (ORDER.includes(kind) ? ORDER.indexOf(kind) : ORDER.length);

export const HUB_SECRET_NAME = 'flotilla-agent-hub';

/**
 * The whole install of a connected agent as one YAML stream: the standalone
 * install (namespace, CRD, service account, RBAC, Deployment), what connected
 * mode adds (writing Projects and namespaces, its identity Secret), and a
 * Secret with the hub's address, the hub's agent CA (the agent trusts the
 * hub only with a certificate from it) and a fresh bootstrap token, which
 * the Deployment reads. The Deployment runs the hub's agent image.
 * `kubectl apply -f` of it is the install.
 */
export function agentInstallManifest(opts: { hubAddress: string; bootstrapToken: string; caPem: string; /** the hub's configured agent image (FLOTILLA_AGENT_IMAGE) */ image: string }): string {
  const root = deployDir();
  const docs = [...load(join(root, 'agent')), ...load(join(root, 'agent-connected'))];
  const namespace = docs.find((d) => d.kind === 'Namespace')?.metadata.name ?? 'flotilla-system';
  docs.push({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: HUB_SECRET_NAME, namespace, labels: { 'app.kubernetes.io/name': 'flotilla-agent' } },
    type: 'Opaque',
    stringData: { hubAddress: opts.hubAddress, hubCa: opts.caPem, bootstrapToken: opts.bootstrapToken },
  });
  for (const d of docs.filter((x) => x.kind === 'Deployment')) {
    const container = (d as unknown as { spec: { template: { spec: { containers: Array<{ image?: string; args?: string[]; env?: unknown[] }> } } } }).spec.template.spec.containers[0];
    // the hub's agent image, not the one deploy/agent names for a standalone install
    container.image = opts.image;
    container.args = [...(container.args ?? []), `--hub-address=${opts.hubAddress}`];
    container.env = [
      ...(container.env ?? []),
      { name: 'FLOTILLA_HUB_CA', valueFrom: { secretKeyRef: { name: HUB_SECRET_NAME, key: 'hubCa' } } },
      { name: 'FLOTILLA_HUB_BOOTSTRAP_TOKEN', valueFrom: { secretKeyRef: { name: HUB_SECRET_NAME, key: 'bootstrapToken' } } },
    ];
  }
  docs.sort((a, b) => rank(a.kind) - rank(b.kind));
  return docs.map((d) => stringify(d)).join('---\n');
}
