import { lineOf, orderedToJson, packageOf, resolveInTree } from './cue-source';
import { parseOrderedJson } from '@flotilla/cue';

describe('cue-source helpers', () => {
  it('finds the package clause after comments and attributes', () => {
    expect(packageOf('// c\n@if(!debug)\n\npackage main\n')).toBe('main');
    expect(packageOf('bundle: {}\n')).toBeUndefined();
  });

  it('resolves references inside the tree and refuses escapes', () => {
    expect(resolveInTree('deploy', './app/b.cue')).toBe('deploy/app/b.cue');
    expect(resolveInTree('deploy', '../x.cue')).toBe('x.cue');
    expect(resolveInTree('deploy', '../../x.cue')).toBeUndefined();
    expect(resolveInTree('', '/etc/passwd')).toBeUndefined();
  });

  it('keeps key order when serialising ordered JSON', () => {
    expect(orderedToJson(parseOrderedJson('{"b":1,"10":[true,null],"a":{"x":"y"}}'))).toBe('{"b":1,"10":[true,null],"a":{"x":"y"}}');
    expect(lineOf('a\nb\nc', 'c')).toBe(3);
  });
});
