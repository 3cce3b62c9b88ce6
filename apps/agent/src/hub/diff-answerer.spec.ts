import type { ProjectDiff } from '@flotilla/engine';
import { boundedJson } from './diff-answerer';

const diff = (texts: number, size: number): ProjectDiff => ({
  revision: 'upload',
  unchanged: 0,
  objects: Array.from({ length: texts }, (_, i) => ({ subject: `ConfigMap/ns/c${i}`, instance: 'ns/app', component: 'app', action: 'changed' as const, diff: 'x'.repeat(size) })),
  errors: [],
});

describe('boundedJson', () => {
  it('sends a diff that fits as it is', () => {
    const d = diff(2, 10);
    expect(JSON.parse(boundedJson(d, 1000))).toEqual(d);
  });

  it('leaves out the unified texts of one that does not, and says so', () => {
    const out = JSON.parse(boundedJson(diff(3, 400), 1000)) as ProjectDiff;
    expect(out.objects.map((o) => [o.subject, o.diff])).toEqual([['ConfigMap/ns/c0', ''], ['ConfigMap/ns/c1', ''], ['ConfigMap/ns/c2', '']]);
    expect(out.errors).toEqual([{ component: '*', message: expect.stringMatching(/^the unified diffs were left out: the answer took \d+ bytes, over the agent stream's limit of 1000$/) }]);
  });

  it('fails when even the list of objects is too large', () => {
    expect(() => boundedJson(diff(50, 1), 500)).toThrow(/does not fit the agent stream's limit of 500 bytes/);
  });
});
