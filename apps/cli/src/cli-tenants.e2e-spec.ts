import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testDir } from '../../../test/harness/temp-dirs';
import { startTestHub, type TestHub } from '../../hub/test/hub';
import { CliUser, expectNoStack } from '../test/run-cli';

// `flotilla tenant …` and `flotilla token …`: the compiled CLI against a hub
// on the harness PostgreSQL sets up a team, and the team's token then works
// only within it.

jest.setTimeout(120_000);

describe('tenants and tokens from the CLI', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub('postgres');
  });
  afterAll(() => hub?.close());

  it('sets up a tenant from a file, issues its token, and the token acts in it only', async () => {
    const admin = new CliUser();
    await admin.ok(['login', '--server', hub.url, '--token-stdin', '--name', 'admin'], { input: `${hub.adminToken}\n` });
    const file = join(testDir('cli-tenant-'), 'team-a.yaml');
    writeFileSync(file, ['name: team-a', 'destinations: {groups: [team-a]}', 'namespaces: ["team-a-*"]', 'serviceAccounts: [deployer]', 'repositories: [oci://127.0.0.1:5000/team-a]', ''].join('\n'));
    expect(await admin.ok(['tenant', 'apply', '-f', file])).toBe('tenant/team-a created\n');
    expect(await admin.ok(['tenant', 'apply', '-f', file])).toBe('tenant/team-a unchanged\n');
    writeFileSync(file, ['name: team-a', 'destinations: {groups: [team-a, lab]}', ''].join('\n'));
    expect(await admin.ok(['tenant', 'apply', '-f', file])).toBe('tenant/team-a configured\n');
    const listed = await admin.ok(['tenant', 'list']);
    expect(listed).toMatch(/team-a\s+group=team-a, group=lab\s+team-a-\*\s+deployer\s+oci:\/\/127\.0\.0\.1:5000\/team-a\s+\(none\)/);

    const issued = await admin.run(['token', 'create', 'team-a-ci', '--role', 'operator', '--tenant', 'team-a']);
    expect(issued.code).toBe(0);
    expect(issued.stderr).toBe('token/team-a-ci created (operator in tenant team-a); it is shown only now:\n');
    const secret = issued.stdout.trim();
    expect(await admin.ok(['token', 'list'])).toMatch(/team-a-ci\s+operator\s+team-a/);

    const team = new CliUser();
    await team.ok(['login', '--server', hub.url, '--token-stdin', '--name', 'team'], { input: `${secret}\n` });
    expect(await team.ok(['project', 'create', 'web', '--namespace', 'team-a-web', '--service-account', 'deployer', '--repository', 'oci://127.0.0.1:5000/team-a/web', '--group', 'team-a'])).toMatch(/^project\/web created/);
    const outside = await team.run(['project', 'create', 'sys', '--namespace', 'kube-system', '--service-account', 'deployer', '--repository', 'oci://127.0.0.1:5000/team-a/web']);
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain('namespace "kube-system" is outside tenant "team-a"\'s namespaces [team-a-*] (rule: namespaces)');
    expect(outside.stderr).toContain("outside what your tenant allows: ask an admin to change the tenant's rules or your role");
    expectNoStack(outside.stderr);
    const hubWide = await team.run(['cluster', 'delete', 'nowhere']);
    expect(hubWide.stderr).toContain('(rule: tenant scope)');

    // a Project file may name its tenant, but never move the Project to another
    const moved = join(testDir('cli-tenant-'), 'web.yaml');
    writeFileSync(moved, ['name: web', 'tenant: default', 'namespace: team-a-web', ''].join('\n'));
    const refused = await admin.run(['project', 'apply', '-f', moved]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('project "web" belongs to tenant "team-a", not "default": a Project\'s tenant is fixed at creation');

    const busy = await admin.run(['tenant', 'delete', 'team-a']);
    expect(busy.stderr).toContain('tenant "team-a" still has 1 Project(s)');
    await admin.ok(['project', 'delete', 'web', '--orphan']);
    expect(await admin.ok(['tenant', 'delete', 'team-a'])).toBe('tenant/team-a deleted\n');
    // its token went with it
    expect((await team.run(['project', 'list'])).code).toBe(1);
  });
});
