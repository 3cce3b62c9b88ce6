import { ProjectError } from '@flotilla/timoni';
import {
  BundleError, ComponentTimeoutError, DependencyNotReadyError, FetchError, InstanceBuildError, ProjectLoadError, ResolveError, formatMs,
} from './errors';

describe('engine errors', () => {
  it('name the object, keep the cause and say whether to retry', () => {
    const cause = new Error('project.cue:7:3: needs unknown component "db"');
    const e = new ProjectLoadError('project.cue', { cause });
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('ProjectLoadError');
    expect(e.cause).toBe(cause);
    expect(e.message).toBe('project project.cue: project.cue:7:3: needs unknown component "db"');
    expect([e.step, e.reason, e.retryable]).toEqual(['load', 'InvalidProject', false]);
    // libs/timoni already names the project file: once is enough
    const timoni = new ProjectError('project project.cue', [{ message: 'field not allowed', file: 'project.cue', line: 3 }]);
    expect(new ProjectLoadError('project.cue', { cause: timoni }).message).toBe(timoni.message);
    expect(timoni.message).not.toMatch(/project project\.cue: project project\.cue/);
    expect(new ResolveError('r:latest', { cause: new Error('x') }).retryable).toBe(true);
  });

  it('an unusable artifact stalls, a failed download retries', () => {
    expect([new FetchError('r@d', true, { cause: new Error('x') }).reason, new FetchError('r@d', true, { cause: 1 }).retryable]).toEqual(['InvalidArtifact', false]);
    expect([new FetchError('r@d', false, { cause: new Error('x') }).reason, new FetchError('r@d', false, { cause: 1 }).retryable]).toEqual(['ArtifactFetchFailed', true]);
  });

  it('module fetch failures retry, build failures stall', () => {
    expect(new InstanceBuildError('c', 'i', true, { cause: new Error('503') })).toMatchObject({ reason: 'ModuleFetchFailed', retryable: true });
    const build = new InstanceBuildError('c', 'i', false, { cause: new Error('values.cue:3: conflict') });
    expect(build).toMatchObject({ reason: 'BuildFailed', retryable: false, component: 'c', instance: 'i' });
    expect(build.message).toBe('component c, instance i: build: values.cue:3: conflict');
    expect(new BundleError('c', { cause: new Error('x') }).retryable).toBe(false);
  });

  it('timeouts and skipped components say why', () => {
    expect(new ComponentTimeoutError('infra', 300_000).message).toBe('component infra: did not finish within its timeout of 5m');
    expect(new DependencyNotReadyError('app', ['infra', 'db']).message).toBe('component app: not run: needs infra, db, which did not succeed');
  });

  it('formats durations', () => {
    expect([formatMs(90_000), formatMs(1500), formatMs(120_000)]).toEqual(['90s', '1500ms', '2m']);
  });
});
