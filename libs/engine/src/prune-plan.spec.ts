import { planPrune, type StoredInstanceRef } from './prune-plan';
import type { ComponentResult } from './types';

const c = (name: string, status: ComponentResult['status'], instances?: string[]): ComponentResult => ({
  name,
  status,
  instances: [],
  durationMs: 0,
  instanceNames: instances?.map((i) => ({ namespace: 'apps', name: i })),
});
const s = (name: string, component: string, namespace = 'apps'): StoredInstanceRef => ({ name, namespace, component });

describe('planPrune', () => {
  it('prunes an instance that left a component that succeeded', () => {
    expect(planPrune([s('web', 'front'), s('old', 'front')], [c('front', 'Succeeded', ['web'])])).toEqual([s('old', 'front')]);
  });

  it('keeps instances of a component that failed', () => {
    expect(planPrune([s('old', 'front')], [c('front', 'Failed', ['web'])])).toEqual([]);
  });

  it('prunes instances of a component removed from the project once every component is known', () => {
    expect(planPrune([s('db', 'gone')], [c('front', 'Succeeded', ['web']), c('back', 'Failed', ['api'])])).toEqual([s('db', 'gone')]);
  });

  it('keeps instances of a removed component while some component never rendered its bundle (it may have moved there)', () => {
    expect(planPrune([s('db', 'gone')], [c('front', 'Succeeded', ['web']), c('back', 'Skipped')])).toEqual([]);
  });

  it('never prunes an instance some component wants, whatever its label says', () => {
    expect(planPrune([s('web', 'gone'), s('web', 'front')], [c('front', 'Succeeded', []), c('back', 'Succeeded', ['web'])])).toEqual([]);
  });

  it('tells instances apart by namespace', () => {
    expect(planPrune([s('web', 'front', 'other')], [c('front', 'Succeeded', ['web'])])).toEqual([s('web', 'front', 'other')]);
  });
});
