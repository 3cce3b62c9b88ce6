import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeRequest } from './kube-http';
import { defaultKubeOptions, kubeBinaries, startKube } from './kube';
import { ServiceStartError } from './process';

// startKube's own lifecycle: a start that fails says which binary and why,
// and stop() really takes the server down.

let workDir: string;

beforeEach(() => {
  workDir = mkdtempSync(join(tmpdir(), 'flotilla-kube-start-'));
});

afterEach(() => {
  rmSync(workDir, { recursive: true, force: true });
});

describe('startKube', () => {
  it('names etcd when etcd cannot start', async () => {
    const binaries = { ...kubeBinaries(), etcd: '/bin/false' };
    const err = await startKube(workDir, { ...defaultKubeOptions(), binaries }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceStartError);
    expect((err as Error).message).toMatch(/^etcd did not start: process exited \(1\)/);
  });

  it('shows the kube-apiserver log when the API server exits', async () => {
    const fake = join(workDir, 'broken-apiserver');
    writeFileSync(fake, '#!/bin/sh\necho "flag provided but not defined: --nonsense" >&2\nexit 3\n');
    chmodSync(fake, 0o755);
    const binaries = { ...kubeBinaries(), kubeApiserver: fake };
    const err = await startKube(workDir, { ...defaultKubeOptions(), binaries }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceStartError);
    expect((err as Error).message).toMatch(/^kube-apiserver did not start: process exited \(3\)/);
    expect((err as Error).message).toContain('flag provided but not defined: --nonsense');
  });

  it('serves until stop() and not after', async () => {
    const kube = await startKube(workDir);
    const ready = await kubeRequest(kube.endpoint, '/readyz', { token: kube.endpoint.admin.token });
    expect(ready.text).toBe('ok');
    await kube.stop();
    await expect(kubeRequest(kube.endpoint, '/readyz', { token: kube.endpoint.admin.token })).rejects.toThrow(/ECONNREFUSED/);
  });
});
