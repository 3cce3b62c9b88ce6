import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readManifests, sameValue } from './manifest';
import { testDir } from '../../../../../test/harness/temp-dirs';

describe('Project files for apply -f', () => {
  const dir = testDir('flotilla-manifest-');
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const noStdin = () => '';

  it('reads YAML with several documents, and JSON', () => {
    expect(readManifests(file('two.yaml', 'name: a\nnamespace: x\n---\nname: b\nnamespace: y\n'), noStdin).map((m) => m.name)).toEqual(['a', 'b']);
    expect(readManifests(file('one.json', '{"name": "c", "namespace": "z"}'), noStdin)[0]).toEqual({ name: 'c', namespace: 'z' });
    expect(readManifests('-', () => 'name: d\n')[0].name).toBe('d');
  });

  it('takes the removal, ownership, bootstrap and sink header fields', () => {
    const text = 'name: a\nnamespace: x\ntargetRemoval: orphan\noverwriteOwnership: true\nbootstrap: {serviceAccountRole: admin}\ncdeventsSinkHeader: {name: x-token, value: s}\n';
    expect(readManifests(file('all.yaml', text), noStdin)[0]).toMatchObject({ targetRemoval: 'orphan', overwriteOwnership: true, bootstrap: { serviceAccountRole: 'admin' } });
  });

  it('names the file, the line and the field that is wrong', () => {
    expect(() => readManifests(file('bad.yaml', 'name: a\nnamespace: [x\n'), noStdin)).toThrow(/bad\.yaml:\d+:\d+: not valid YAML or JSON/);
    expect(() => readManifests(file('noname.yaml', 'namespace: x\n'), noStdin)).toThrow(/noname\.yaml: the Project has no name/);
    expect(() => readManifests(file('extra.yaml', 'name: a\nsauce: 1\nspec: {}\n'), noStdin)).toThrow('project "a" has unknown fields sauce, spec');
    expect(() => readManifests(file('empty.yaml', ''), noStdin)).toThrow(/holds no Project/);
    expect(() => readManifests(join(dir, 'missing.yaml'), noStdin)).toThrow(/cannot read .*missing\.yaml/);
  });

  it('compares values as the hub returns them: empty lists and nulls do not count, key order does not matter', () => {
    expect(sameValue({ names: ['a'] }, { names: ['a'], groups: [], labelSelector: null })).toBe(true);
    expect(sameValue({ b: 1, a: { y: 2, x: 1 } }, { a: { x: 1, y: 2 }, b: 1 })).toBe(true);
    expect(sameValue({ names: ['a'] }, { names: ['b'] })).toBe(false);
    expect(sameValue('10m', '20m')).toBe(false);
  });
});
