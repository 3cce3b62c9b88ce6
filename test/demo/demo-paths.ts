import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

// test/demo in the sources, dist/test/demo once compiled: the repository
// root is the nearest ancestor that holds package.json.
export const REPO_ROOT = [resolve(__dirname, '../..'), resolve(__dirname, '../../..')].find((dir) => existsSync(join(dir, 'package.json'))) ?? resolve(__dirname, '../..');

export const HUB_MAIN = join(REPO_ROOT, 'dist/apps/hub/src/main.js');
export const AGENT_MAIN = join(REPO_ROOT, 'dist/apps/agent/src/main.js');
export const DAEMON_MAIN = join(REPO_ROOT, 'dist/test/demo/fleet-daemon.js');
export const SAMPLE_DIR = join(REPO_ROOT, 'test/demo/sample');
export const AGENT_CRD = join(REPO_ROOT, 'deploy/agent/crd.yaml');

/** Where the demo keeps its state, data and logs: $FLOTILLA_DEMO_DIR, else .flotilla-demo/ in the clone. */
export function demoDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.FLOTILLA_DEMO_DIR || join(REPO_ROOT, '.flotilla-demo'));
}
