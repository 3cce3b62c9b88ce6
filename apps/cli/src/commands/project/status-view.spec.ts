import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { Cli } from '../../cli';
import type { Project, Target } from '../../hub/types';
import { renderStatus } from './status-view';

const cli = (colour: boolean) =>
  new Cli({ out: Object.assign(new PassThrough(), { isTTY: colour }), err: new PassThrough(), env: {}, now: () => new Date('2026-11-28T00:00:00.000Z') }, new Command());
const project = { name: 'shop', namespace: 'apps', source: { repository: 'oci://r/shop', tag: 'latest', path: 'project.cue' }, generation: 1, suspend: false, status: { ready: 2, targets: 2, deleting: false } } as unknown as Project;
const condition = (type: string, status: string) => ({ type, status, reason: 'R', message: 'm', lastTransitionTime: '2026-11-27T00:00:00.000Z' });
const target = (cluster: string, healthy: string): Target => ({
  cluster, clusterGroup: 'staging', phase: 'Ready', conditions: [condition('Ready', 'True'), condition('Healthy', healthy)], generation: 1, observedGeneration: 1,
  lastAppliedRevision: 'latest@sha256:aa', components: [], nextRunAt: null, attempt: 0,
});

describe('renderStatus', () => {
  it('never shows a Target Ready but not Healthy as a plain (green) Ready', () => {
    const rows = renderStatus(cli(false), project, [target('ok-1', 'True'), target('sick-1', 'False')], false).split('\n');
    expect(rows.find((r) => r.startsWith('ok-1'))).toMatch(/^ok-1\s+staging\s+Ready\s+latest/);
    expect(rows.find((r) => r.startsWith('sick-1'))).toMatch(/^sick-1\s+staging\s+Ready \(Unhealthy\)\s+latest/);
    const coloured = renderStatus(cli(true), project, [target('ok-1', 'True'), target('sick-1', 'Unknown')], false);
    expect(coloured).toContain('\x1b[32mReady\x1b[39m');
    expect(coloured).toContain('\x1b[33mReady (Unhealthy)\x1b[39m');
  });

  it("says how many of the Project's Ready Targets are unhealthy, and nothing when none is (or an older hub does not say)", () => {
    const sick = { ...project, status: { ...project.status, unhealthy: 1 } };
    expect(renderStatus(cli(false), sick, [target('ok-1', 'True'), target('sick-1', 'False')], false)).toContain('Targets: 2/2 ready, 1 unhealthy\n');
    expect(renderStatus(cli(false), { ...project, status: { ...project.status, unhealthy: 0 } }, [target('ok-1', 'True')], false)).toContain('Targets: 2/2 ready\n');
    expect(renderStatus(cli(false), project, [target('ok-1', 'True')], false)).toContain('Targets: 2/2 ready\n');
  });
});
