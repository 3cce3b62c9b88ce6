import { X509Certificate } from 'node:crypto';
import { parseAllDocuments } from 'yaml';
import type { ObjectClient } from '@flotilla/kube';
import { kubeconfigFile, startAgentProcess, testAgentArgs, type AgentProcess } from '../../../apps/agent/test/agent-process';
import { kubeconfigYaml } from '../../../apps/hub/test/kubeconfig';
import { harnessEnv } from '../../harness/env';
import type { HubApi } from './hub-api';

// An agent cluster in the suites: registered on a hub, its install manifest
// fetched, and the compiled agent started with what that manifest gives it
// (hub address, bootstrap token, agent CA). The agent runs as a process
// against the harness API server with the admin identity and keeps its key
// and certificate in a Secret of the suite's namespace, so several agents
// can share the one API server.

/** What an agent's install manifest hands it: the Secret `flotilla-agent-hub`. */
export interface HubSecret {
  hubAddress: string;
  bootstrapToken: string;
  hubCa: string;
}

export async function installManifestSecret(api: HubApi, cluster: string): Promise<HubSecret> {
  const manifest = await api.expectCall(200, 'GET', `/api/v1/clusters/${cluster}/agent/manifest`);
  for (const doc of parseAllDocuments(manifest.text)) {
    const obj = doc.toJS() as { kind?: string; metadata?: { name?: string }; stringData?: Record<string, string> } | null;
    if (obj?.kind === 'Secret' && obj.metadata?.name === 'flotilla-agent-hub' && obj.stringData) {
      const { hubAddress, bootstrapToken, hubCa } = obj.stringData;
      if (hubAddress && bootstrapToken && hubCa) return { hubAddress, bootstrapToken, hubCa };
    }
  }
  throw new Error(`the install manifest of cluster ${cluster} has no Secret flotilla-agent-hub with hubAddress, bootstrapToken and hubCa`);
}

export interface ConnectedAgent {
  process: AgentProcess;
  /** what its manifest gave it */
  hub: HubSecret;
  /** the client certificate it keeps in its identity Secret (absent until it registered) */
  certificate(): Promise<X509Certificate | undefined>;
}

/**
 * Registers `cluster` (mode agent) on the hub and starts its agent, which
 * watches Projects in `namespace` and keeps its identity in
 * `<namespace>/<cluster>-identity`.
 */
export async function startConnectedAgent(api: HubApi, kube: ObjectClient, opts: { cluster: string; group: string; namespace: string; healthRecheck?: string }): Promise<ConnectedAgent> {
  await api.expectCall(201, 'POST', '/api/v1/clusters', { name: opts.cluster, group: opts.group, mode: 'agent' });
  const hub = await installManifestSecret(api, opts.cluster);
  const k = harnessEnv().kube;
  const kubeconfig = kubeconfigFile(kubeconfigYaml({ server: k.server, caData: k.caData, token: k.admin.token, context: 'flotilla-agent' }));
  const identitySecret = `${opts.cluster}-identity`;
  const agent = startAgentProcess(
    testAgentArgs({ kubeconfig, identity: `agent-${opts.cluster}`, namespace: opts.namespace }, [
      `--hub-address=${hub.hubAddress}`,
      `--hub-identity-secret=${opts.namespace}/${identitySecret}`,
      '--hub-heartbeat=500ms',
      '--hub-reconnect-max=1s',
      '--reconcile-interval=1m',
      '--retry-initial=500ms',
      '--retry-max=2s',
      ...(opts.healthRecheck ? [`--health-recheck-interval=${opts.healthRecheck}`] : []),
    ]),
    { FLOTILLA_HUB_BOOTSTRAP_TOKEN: hub.bootstrapToken, FLOTILLA_HUB_CA: hub.hubCa },
  );
  await agent.url;
  return {
    process: agent,
    hub,
    certificate: async () => {
      const secret = await kube.getOptional({ apiVersion: 'v1', kind: 'Secret', namespace: opts.namespace, name: identitySecret });
      const crt = (secret?.data as Record<string, string> | undefined)?.['tls.crt'];
      return crt ? new X509Certificate(Buffer.from(crt, 'base64')) : undefined;
    },
  };
}
