import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findRegexes, sourceFiles } from './regex-sources';

describe('findRegexes', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'flotilla-regex-sources-'));
    writeFileSync(join(dir, 'parts.ts'), "export const KEY = '[a-z]+';\nexport const WORD = /\\w+/;\n");
    writeFileSync(
      join(dir, 'main.ts'),
      [
        "import { KEY, WORD } from './parts';",
        "const VAL = '[0-9]*';",
        "const ALTS = [`${KEY}=${VAL}`, `!${KEY}`].join('|');",
        'export const A = /^a\\/b$/gi;',
        'export const B = new RegExp(`^(?:${ALTS})$`);',
        "export const C = RegExp(WORD.source.slice(0, -1) + '*', 'u');",
        'export const D = (name: string) => new RegExp(name);',
      ].join('\n'),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads literals, and RegExp built from constants of the file and its relative imports', () => {
    const found = findRegexes(dir, sourceFiles(dir));
    expect(found.filter((r) => r.file === 'main.ts')).toEqual([
      { file: 'main.ts', line: 4, expression: '/^a\\/b$/gi', source: '^a\\/b$', flags: 'gi' },
      { file: 'main.ts', line: 5, expression: 'new RegExp(`^(?:${ALTS})$`)', source: '^(?:[a-z]+=[0-9]*|![a-z]+)$', flags: '' },
      { file: 'main.ts', line: 6, expression: "RegExp(WORD.source.slice(0, -1) + '*', 'u')", source: '\\w*', flags: 'u' },
      { file: 'main.ts', line: 7, expression: 'new RegExp(name)', unresolved: 'not a constant: name' },
    ]);
    expect(found.filter((r) => r.file === 'parts.ts')).toEqual([{ file: 'parts.ts', line: 2, expression: '/\\w+/', source: '\\w+', flags: '' }]);
  });
});
