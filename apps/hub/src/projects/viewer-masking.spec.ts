import { HIDDEN_VALUE, maskAnnotations, maskUrl, projectFor, SECRET_ANNOTATIONS_KEY } from './viewer-masking';
import type { ProjectDto } from './projects.views';

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
});
