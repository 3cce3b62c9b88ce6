import { join } from 'node:path';
import { CueEngine, readFileTree } from '@flotilla/cue';
import { parseDuration } from './duration';
import { ProjectCycleError, ProjectError } from './errors';
import { loadProject } from './project-load';
import { planProject } from './project-plan';
import { TESTDATA } from './test-support';

const project = (name: string) => readFileTree(join(TESTDATA, 'projects', name));

describe('project definitions', () => {
  let cue: CueEngine;
  beforeAll(async () => {
    cue = await CueEngine.start({ poolSize: 1 });
  });
  afterAll(() => cue.close());

  it('plans a diamond: dependencies first, independent components grouped', async () => {
    const { project: p, plan } = await loadProject(cue, project('diamond'), { path: 'project.cue' });
    expect(p.name).toBe('diamond');
    expect(p.components.map((c) => c.name)).toEqual(['frontend', 'api', 'worker', 'infra']);
    expect(plan.groups).toEqual([['infra'], ['api', 'worker'], ['frontend']]);
    expect(plan.order).toEqual(['infra', 'api', 'worker', 'frontend']);
    const infra = p.components.find((c) => c.name === 'infra')!;
    expect(infra).toMatchObject({ bundle: ['infra/bundle.cue'], runtime: ['infra/runtime.cue'], wait: true, timeout: '5m', timeoutMs: 300_000 });
    expect(p.components[0]).toMatchObject({ needs: ['api', 'worker'], wait: false });
  });

  it('names the cycle', async () => {
    const err = await loadProject(cue, project('cycle'), { path: 'project.cue' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectCycleError);
    expect((err as ProjectCycleError).cycle).toEqual(['a', 'b', 'c', 'a']);
    expect((err as Error).message).toContain('a -> b -> c -> a');
  });

  it('reports missing and escaping files, unknown needs and bad durations together, with lines', async () => {
    const err = (await loadProject(cue, project('broken'), { path: 'deploy/project.cue' }).catch((e: unknown) => e)) as ProjectError;
    expect(err).toBeInstanceOf(ProjectError);
    const lines = err.issues.map((i) => `${i.file}:${i.line} ${i.message}`);
    expect(lines).toEqual([
      'deploy/project.cue:7 bundle file ./app/missing.cue not found',
      'deploy/project.cue:8 runtime file ../../outside.cue escapes the project source',
      'deploy/project.cue:10 timeout "5 minutes" is not a positive duration (e.g. 90s, 5m, 1h30m)',
      'deploy/project.cue:12 component has no bundle files',
      'deploy/project.cue:9 needs unknown component "db"',
    ]);
  });

  it('rejects a project without components', async () => {
    const files = { 'project.cue': 'project: {apiVersion: "v1alpha1", name: "empty", components: {}}\n' };
    await expect(loadProject(cue, files, { path: 'project.cue' })).rejects.toThrow('project has no components');
  });

  it('reports schema errors with file and line', async () => {
    const files = { 'project.cue': 'project: {\n\tapiVersion: "v1alpha1"\n\tname: "x"\n\tcomponents: a: {bundle: ["b.cue"], extra: 1}\n}\n', 'b.cue': '' };
    const err = (await loadProject(cue, files, { path: 'project.cue' }).catch((e: unknown) => e)) as ProjectError;
    expect(err).toBeInstanceOf(ProjectError);
    expect(err.issues.some((i) => i.file === 'project.cue' && i.line === 4 && /extra/.test(i.message))).toBe(true);
  });

  it('rejects a missing project file', async () => {
    await expect(loadProject(cue, {}, { path: 'project.cue' })).rejects.toThrow('project file project.cue not found');
  });
});

describe('planProject', () => {
  it('treats a self-dependency as a cycle', () => {
    expect(() => planProject([{ name: 'a', needs: ['a'] }])).toThrow('a -> a');
  });
});

describe('parseDuration', () => {
  it('reads Go durations', () => {
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration('300ms')).toBe(300);
    expect(parseDuration('0')).toBe(0);
    for (const bad of ['', '5', 'm', '5 m', '5min', '1h-3m']) expect(parseDuration(bad)).toBeUndefined();
  });
});
