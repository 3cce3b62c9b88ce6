// The agent's install manifests, read from deploy/agent in the checkout or
// installed package the CLI runs from: the one copy `kubectl apply -f
// deploy/agent/` uses too, so the CLI never installs a different agent.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '@flotilla/kube';
import { CliError } from '../errors';

// What must exist first: CRDs and namespaces, then identities, then RBAC, then workloads.
const KIND_ORDER = ['CustomResourceDefinition', 'Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'];

/** deploy/agent above this file (src when run by tests, dist when built). */
export function agentManifestDir(from = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'deploy', 'agent');
    if (existsSync(join(candidate, 'crd.yaml'))) return candidate;
    if (dirname(dir) === dir) throw new CliError('the agent manifests (deploy/agent) are not beside this flotilla', 'run flotilla from its checkout or package, or install the agent with `kubectl apply -f deploy/agent/` and pass --no-agent');
  }
}

export function loadAgentManifests(dir = agentManifestDir(), image?: string): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      const obj = doc.toJS() as KubeObject | null;
      if (obj?.apiVersion && obj.kind && obj.metadata?.name) objects.push(image && obj.kind === 'Deployment' ? withImage(obj, image) : obj);
    }
  }
  const rank = (kind: string) => (KIND_ORDER.includes(kind) ? KIND_ORDER.indexOf(kind) : KIND_ORDER.length);
  return objects.sort((a, b) => rank(a.kind) - rank(b.kind));
}

function withImage(deployment: KubeObject, image: string): KubeObject {
  const copy = structuredClone(deployment) as KubeObject & { spec: { template: { spec: { containers: Array<{ image: string }> } } } };
  for (const c of copy.spec.template.spec.containers) c.image = image;
  return copy;
}
