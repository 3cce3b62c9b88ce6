import { RegistryClient, type Credentials } from '@flotilla/oci';
import { harnessEnv } from '../harness/env';
import { startRecordingListener } from '../harness/recording-listener';
import { shopProjectFiles } from './fixtures/projects';
import { HubFleet } from './support/hub-fleet';
import { publishProject, publishWebapp } from './support/publish';
import { eventually } from './support/eventually';
import { configMapData, createProject, readyOn, runs, target } from './support/shop';
import { adminClient, deleteNamespaces, prepareTenant, registerSpoke, uniqueName } from './support/spoke';

// Registry credentials in push mode (issue 8): the Project's own, sealed by
// the hub, serve the tag resolution, the artifact and the module. Module and
// Project live in the harness registry that requires basic auth.
// The image-pull-secret case fails today: the hub's source poller resolves
// the tag with the Project's credentials only, so the Target never runs.

jest.setTimeout(90_000);

describe('push mode from a registry that requires credentials', () => {
  const auth = harnessEnv().registryAuth;
  const credentials: Credentials = { kind: 'basic', username: auth.username, password: auth.password };
  const registry = new RegistryClient({ credentials });
  const kube = adminClient();
  const namespaces: string[] = [];
  let fleet: HubFleet;
  let moduleUrl: string;

  beforeAll(async () => {
    moduleUrl = await publishWebapp(registry, '1.0.0', auth.host);
    fleet = await HubFleet.start(['hub-1']);
    await registerSpoke(fleet, 'spoke-1', 'staging');
  });

  afterAll(async () => {
    await fleet?.stop();
    await deleteNamespaces(kube, namespaces);
    await kube.connection.close();
  });

  async function shop(name: string, ns: string): Promise<string> {
    const repo = `oci://${auth.host}/${uniqueName(`e2e/projects/${name}`)}`;
    const digest = await publishProject(registry, repo, shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db'], message: name }));
    return `${repo}@latest@${digest}`;
  }

  it('uses the Project’s registry credentials', () =>
    fleet.guard(async () => {
      const ns = uniqueName('e2e-creds');
      namespaces.push(ns);
      await prepareTenant(kube, { namespace: ns, serviceAccount: 'deployer', instanceNamespaces: [ns] });
      const [repo, revision] = splitRef(await shop('basic', ns));
      await createProject(fleet, { name: 'basic', namespace: ns, repository: repo }, {
        registryCredentials: { username: auth.username, password: auth.password },
      });
      await readyOn(fleet, 'basic', 'spoke-1', revision);
      expect((await configMapData(kube, ns))['web-config']).toEqual({ message: 'basic', cluster: 'spoke-1' });
      const project = await fleet.expectCall(200, 'GET', '/api/v1/projects/basic');
      expect(project.body.registryCredentials).toMatchObject({ kind: expect.any(String), fingerprint: expect.stringMatching(/^hmac:[0-9a-f]{16}$/) });
      expect(project.text).not.toContain(auth.password);
    })());

  it('never sends the Project’s credentials to another registry that a bundle in its artifact names', () =>
    fleet.guard(async () => {
      // the "registry" a bundle names: asks for basic auth and records what it gets
      const attacker = await startRecordingListener((_req, res) =>
        res.writeHead(401, { 'www-authenticate': 'Basic realm="collect"', 'content-type': 'application/json' }).end('{"errors":[{"code":"UNAUTHORIZED","message":"credentials please"}]}'),
      );
      try {
        const ns = uniqueName('e2e-elsewhere');
        namespaces.push(ns);
        await prepareTenant(kube, { namespace: ns, serviceAccount: 'deployer', instanceNamespaces: [ns] });
        const repo = `oci://${auth.host}/${uniqueName('e2e/projects/elsewhere')}`;
        await publishProject(registry, repo, shopProjectFiles({ moduleUrl: `oci://${attacker.host}/modules/webapp`, moduleVersion: '1.0.0', namespace: ns, infra: ['db'], message: 'elsewhere' }));
        await createProject(fleet, { name: 'elsewhere', namespace: ns, repository: repo }, { registryCredentials: { username: auth.username, password: auth.password } });
        // the positive signal: a run fetched the artifact with the credentials, asked the other registry for the module, and failed there
        await eventually(
          'a run that failed on the module registry',
          async () => (await runs(fleet, 'elsewhere', 'spoke-1')).find((r) => r.finishedAt !== null && r.result === 'Failed' && JSON.stringify(r).includes(attacker.host)),
          { timeoutMs: 45_000, observe: () => target(fleet, 'elsewhere', 'spoke-1') },
        );
        expect(attacker.requests.length).toBeGreaterThan(0);
        expect(attacker.requests.map((r) => r.authorization)).toEqual(attacker.requests.map(() => undefined));
      } finally {
        await attacker.close();
      }
    })());

  it('uses the image pull secrets of the Project’s service account when the Project has none', () =>
    fleet.guard(async () => {
      const ns = uniqueName('e2e-pull');
      namespaces.push(ns);
      await prepareTenant(kube, { namespace: ns, serviceAccount: 'deployer', instanceNamespaces: [ns] });
      const dockerConfig = JSON.stringify({ auths: { [auth.host]: { auth: Buffer.from(`${auth.username}:${auth.password}`).toString('base64') } } });
      const apply = { dryRun: false, force: true, fieldManager: 'flotilla-e2e' };
      await kube.apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'registry', namespace: ns }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from(dockerConfig).toString('base64') } }, apply);
      await kube.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'deployer', namespace: ns }, imagePullSecrets: [{ name: 'registry' }] }, apply);
      const [repo, revision] = splitRef(await shop('pull', ns));
      await createProject(fleet, { name: 'pull', namespace: ns, repository: repo });
      await eventually('the Target to leave Pending', async () => ((await target(fleet, 'pull', 'spoke-1')).phase !== 'Pending' ? true : undefined), {
        timeoutMs: 15_000,
        observe: () => target(fleet, 'pull', 'spoke-1'),
      });
      await readyOn(fleet, 'pull', 'spoke-1', revision);
      expect((await configMapData(kube, ns))['web-config']).toEqual({ message: 'pull', cluster: 'spoke-1' });
    })());
});

function splitRef(ref: string): [string, string] {
  const at = ref.indexOf('@');
  return [ref.slice(0, at), ref.slice(at + 1)];
}
