import { RegistryClient } from '@flotilla/oci';
import { harnessEnv } from '../../../test/harness/env';
import { adminManager, createTenant, pushProject, unique } from '../../../libs/engine/testdata/harness';
import { eventually } from '../../../libs/kube/testdata/eventually';
import { kubeconfigFile, startAgentProcess, testAgentArgs, type AgentProcess } from '../test/agent-process';
import { serviceAccountSubject } from '../../../test/harness/kube-rbac';
import { AGENT_NAMESPACE, AGENT_SERVICE_ACCOUNT, agentKubeconfig, grantSecretRead, installAgent } from '../test/install';
import { applyObject, condition, configMaps, getProject, projectObject, pushGreeterModule } from '../test/project-fixtures';

// A Project in a registry that wants credentials: the agent finds them only
// in the image pull secrets of the Project's service account, for the first
// reconcile and for the tag polls after it.

jest.setTimeout(180_000);

describe('standalone agent: registry credentials from the service account', () => {
  const { manager } = adminManager();
  const client = manager.client;
  let agent: AgentProcess;
  let ns: string;
  let moduleUrl: string;
  let private_: RegistryClient;
  let repo: string;

  const files = (greeting: string) => ({
    'project.cue': `project: {\n\tapiVersion: "v1alpha1"\n\tname: "private"\n\tcomponents: main: bundle: ["./bundle.cue"]\n}\n`,
    'bundle.cue': `bundle: {\n\tapiVersion: "v1alpha1"\n\tname: "private"\n\tinstances: secret: {\n\t\tmodule: {url: "${moduleUrl}", version: "1.0.0"}\n\t\tnamespace: "${ns}"\n\t\tvalues: greeting: "${greeting}"\n\t}\n}\n`,
  });

  beforeAll(async () => {
    const env = harnessEnv();
    private_ = new RegistryClient({ credentials: { kind: 'basic', username: env.registryAuth.username, password: env.registryAuth.password } });
    repo = `oci://${env.registryAuth.host}/${unique('projects/private')}`;
    await installAgent(client);
    const kubeconfig = kubeconfigFile(await agentKubeconfig(client));
    [moduleUrl, ns] = await Promise.all([pushGreeterModule(), createTenant(client, 'agent-creds')]);
    const config = JSON.stringify({ auths: { [env.registryAuth.host]: { auth: Buffer.from(`${env.registryAuth.username}:${env.registryAuth.password}`).toString('base64') } } });
    await applyObject(client, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pull', namespace: ns }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from(config).toString('base64') } });
    await applyObject(client, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'deployer', namespace: ns }, imagePullSecrets: [{ name: 'pull' }] });
    // the install reads no Secret outside its namespace: this one lets it read its pull secrets
    await grantSecretRead(client, ns);
    agent = startAgentProcess(testAgentArgs({ kubeconfig, identity: 'agent-creds', namespace: ns }, ['--poll-interval=300ms']));
    await agent.url;
  });

  afterAll(async () => {
    await agent?.stop();
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
    await client.connection.close();
  });

  it('pulls and polls a private Project with the pull secret of its service account', async () => {
    const first = await pushProject(private_, repo, files('hush'));
    await applyObject(client, projectObject('private', ns, repo));
    const ready = await eventually('Ready', async () => {
      const p = await getProject(client, ns, 'private');
      return condition(p, 'Ready')?.status === 'True' ? p : undefined;
    }, 120_000);
    expect(ready.status!.lastAppliedRevision).toBe(`latest@${first}`);
    expect((await configMaps(client, ns))['secret-greeting']).toEqual({ greeting: 'hush', cluster: '' });

    const second = await pushProject(private_, repo, files('still hush'));
    await eventually('the new digest, found by a poll with the same credentials', async () => (await getProject(client, ns, 'private'))?.status?.lastAppliedRevision === `latest@${second}`, 60_000);
    expect((await configMaps(client, ns))['secret-greeting']).toEqual({ greeting: 'still hush', cluster: '' });
  });
  it('reads no pull secret once the namespace takes back its binding: the run fails saying so', async () => {
    // (the agent watches this namespace only, so the same namespace stands in for one that never bound the role)
    await client.delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', namespace: ns, name: 'flotilla-agent-secret-reader' });
    const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { ...serviceAccountSubject(AGENT_NAMESPACE, AGENT_SERVICE_ACCOUNT), resourceAttributes: { namespace: ns, verb: 'get', resource: 'secrets', name: 'pull' } } };
    await eventually('RBAC no longer lets the agent read the pull secret', async () => {
      const r = await client.connection.request<{ status?: { allowed?: boolean } }>({ method: 'POST', path: '/apis/authorization.k8s.io/v1/subjectaccessreviews', body: review });
      return r.status?.allowed !== true;
    }, 15_000);
    await applyObject(client, projectObject('closed', ns, repo));
    const failed = await eventually('Ready True or False', async () => {
      const c = condition(await getProject(client, ns, 'closed'), 'Ready');
      return c?.status === 'False' || c?.status === 'True' ? c : undefined;
    }, 60_000);
    expect(failed.status).toBe('False');
    expect(failed.message).toContain(`ServiceAccount/${ns}/deployer: cannot read image pull secret pull`);
    expect(failed.message).toContain('403');
  });
});
