import { eventFor, HIDDEN_VALUE, maskAnnotations, maskUrl, projectFor, runFor, SECRET_ANNOTATIONS_KEY, targetFor } from './viewer-masking';
import type { EventDto, ProjectDto, RunDto, TargetDto } from './projects.views';

describe('viewer masking', () => {
  it('keeps only the scheme and host of a URL', () => {
    expect(maskUrl('https://sink.example.com/hooks/T000/B000/XXXX?token=abc#x')).toBe('https://sink.example.com/…');
    expect(maskUrl('http://10.0.0.1:8080/')).toBe('http://10.0.0.1:8080/');
    expect(maskUrl('http://[::1]:9000/a')).toBe('http://[::1]:9000/…');
    expect(maskUrl('not a url')).toBe(HIDDEN_VALUE);
  });

  it('hides the values of the annotations the Project lists as secret', () => {
    const annotations = { [SECRET_ANNOTATIONS_KEY]: 'runtime.timoni.sh/DB_PASSWORD, runtime.timoni.sh/API_KEY', 'runtime.timoni.sh/DB_PASSWORD': 'hunter2', 'runtime.timoni.sh/API_KEY': 'k', 'runtime.timoni.sh/REGION': 'eu' };
    expect(maskAnnotations(annotations)).toEqual({ ...annotations, 'runtime.timoni.sh/DB_PASSWORD': HIDDEN_VALUE, 'runtime.timoni.sh/API_KEY': HIDDEN_VALUE });
    expect(maskAnnotations({ a: 'b' })).toEqual({ a: 'b' });
  });

  it('masks for viewers and anonymous readers only', () => {
    const p = { name: 'web', annotations: { [SECRET_ANNOTATIONS_KEY]: 'x', x: 'secret' }, cdeventsSink: 'https://sink.example.com/abc' } as unknown as ProjectDto;
    const viewer = projectFor({ tokenId: 't', name: 'v', role: 'viewer' }, p);
    expect(viewer).toMatchObject({ annotations: { x: HIDDEN_VALUE }, cdeventsSink: 'https://sink.example.com/…' });
    expect(projectFor(undefined, p).cdeventsSink).toBe('https://sink.example.com/…');
    expect(projectFor({ tokenId: 't', name: 'o', role: 'operator' }, p)).toBe(p);
    expect(projectFor({ tokenId: 't', name: 'a', role: 'admin' }, p)).toBe(p);
  });

  it("masks for a member by its role in the Project's tenant, not its highest anywhere", () => {
    // a person signed in whose groups make it operator of team-a and viewer of team-b
    const member = { tokenId: 'sub', name: 'ana', role: 'operator' as const, tenants: { 'team-a': 'operator' as const, 'team-b': 'viewer' as const } };
    const project = (tenant: string) => ({ name: 'web', tenant, annotations: {}, cdeventsSink: 'https://sink.example.com/hooks/secret' }) as unknown as ProjectDto;
    expect(projectFor(member, project('team-a')).cdeventsSink).toBe('https://sink.example.com/hooks/secret');
    expect(projectFor(member, project('team-b')).cdeventsSink).toBe('https://sink.example.com/…');
    const failure = { reason: 'ApplyFailed', step: 'apply', object: null, message: 'the API server said: token abc is invalid' };
    const run = { instances: [], errors: [failure], error: failure.message } as unknown as RunDto;
    expect(runFor(member, 'team-a', run)).toBe(run);
    expect(runFor(member, 'team-b', run).error).toBe('ApplyFailed at step apply; details are shown to operators');
    const target = { conditions: [{ type: 'Ready', status: 'False', reason: 'ApplyFailed', message: failure.message }], components: [] } as unknown as TargetDto;
    expect(targetFor(member, 'team-b', target).conditions[0].message).toBe('ApplyFailed; details are shown to operators');
    const event = { type: 'Warning', reason: 'ApplyFailed', message: failure.message } as unknown as EventDto;
    expect(eventFor(member, 'team-b', event).message).toBe('ApplyFailed; details are shown to operators');
    expect(eventFor(member, undefined, event).message).toBe('ApplyFailed; details are shown to operators');
    // a global principal's role holds everywhere
    expect(eventFor({ tokenId: 't', name: 'o', role: 'operator' }, undefined, event)).toBe(event);
  });
});
