import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { harnessEnv } from '../../../test/harness/env';

const root = join(__dirname, '../../..');

describe('RegistryClient in a process that also loads libs/kube', () => {
  it('pushes blobs whole and in chunks (no duplicate content-length for the npm undici)', () => {
    const res = spawnSync(
      process.execPath,
      [join(root, 'scripts/run-ts.mjs'), join(root, 'libs/oci/testdata/push-beside-undici.ts'), harnessEnv().registry.host],
      { cwd: root, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NODE_OPTIONS: '' } },
    );
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
  });
});
