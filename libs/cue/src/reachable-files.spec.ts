import { reachableFiles } from './files';

describe('reachableFiles', () => {
  const nestedModule = {
    'project.cue': 'project: {}',
    'app/bundle.cue': 'bundle: {}',
    'app/module/cue.mod/module.cue': 'module: "timoni.sh/app"',
    'app/module/timoni.cue': 'package main',
  };

  it('keeps only the named files when the tree has no module of its own', () => {
    expect(reachableFiles(nestedModule, ['app/bundle.cue'])).toEqual({ 'app/bundle.cue': 'bundle: {}' });
  });

  it('keeps the whole tree where imports or @embed can reach other files', () => {
    const withModule = { ...nestedModule, 'cue.mod/module.cue': 'module: "example.com/x"' };
    expect(reachableFiles(withModule, ['project.cue'])).toBe(withModule);
  });

  it('keeps the whole tree for package loads and for names it cannot match', () => {
    expect(reachableFiles(nestedModule, undefined)).toBe(nestedModule);
    expect(reachableFiles(nestedModule, ['./project.cue'])).toBe(nestedModule);
  });
});
