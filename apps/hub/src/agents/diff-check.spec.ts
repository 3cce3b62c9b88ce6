import { AGENT_PROTOCOL_LIMITS } from '@flotilla/agent-protocol';
import { BadAgentDiff, parseAgentDiff } from './diff-check';

const good = {
  revision: 'v2@sha256:' + 'a'.repeat(64),
  unchanged: 3,
  objects: [{ subject: 'ConfigMap/ns/web', instance: 'ns/web', component: 'app', action: 'changed', diff: '--- a\n+++ b\n', extra: 'dropped' }],
  errors: [{ component: 'infra', message: 'render failed' }],
};

describe('parseAgentDiff', () => {
  it('keeps the fields the API shows and drops the rest', () => {
    const d = parseAgentDiff(JSON.stringify(good));
    expect(d.objects[0]).toEqual({ subject: 'ConfigMap/ns/web', instance: 'ns/web', component: 'app', action: 'changed', diff: '--- a\n+++ b\n' });
    expect(d).toMatchObject({ revision: good.revision, unchanged: 3, errors: good.errors });
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['a list', '[]', /not an object/],
    ['no revision', JSON.stringify({ ...good, revision: 1 }), /revision/],
    ['a negative count', JSON.stringify({ ...good, unchanged: -1 }), /unchanged/],
    ['an unknown action', JSON.stringify({ ...good, objects: [{ ...good.objects[0], action: 'applied' }] }), /objects/],
    ['errors without a message', JSON.stringify({ ...good, errors: [{ component: 'x' }] }), /errors/],
  ])('refuses %s', (_what, json, message) => {
    expect(() => parseAgentDiff(json)).toThrow(BadAgentDiff);
    expect(() => parseAgentDiff(json)).toThrow(message);
  });

  it('refuses an answer over the size bound before parsing it', () => {
    const huge = JSON.stringify({ ...good, objects: [{ ...good.objects[0], diff: 'x'.repeat(AGENT_PROTOCOL_LIMITS.maxDiffJsonBytes) }] });
    expect(() => parseAgentDiff(huge)).toThrow(/larger than/);
  });
});
