import { PassThrough } from 'node:stream';
import type { Io } from '../io';
import { outputFormat, painter, table, truncate } from './format';

function io(env: NodeJS.ProcessEnv, isTTY: boolean): Io {
  return { out: Object.assign(new PassThrough(), { isTTY }), err: new PassThrough(), env, now: () => new Date() };
}

describe('output', () => {
  it('aligns columns on the widest cell, ignoring colour codes', () => {
    expect(table(['NAME', 'PHASE'], [['a', '\x1b[32mReady\x1b[39m'], ['longer-name', 'Failed']])).toBe(
      'NAME          PHASE\na             \x1b[32mReady\x1b[39m\nlonger-name   Failed\n',
    );
  });

  it('colours only on a terminal, and never with NO_COLOR or TERM=dumb', () => {
    expect(painter(io({}, true)).green('x')).toBe('\x1b[32mx\x1b[39m');
    expect(painter(io({}, false)).green('x')).toBe('x');
    expect(painter(io({ NO_COLOR: '1' }, true)).green('x')).toBe('x');
    expect(painter(io({ TERM: 'dumb' }, true)).green('x')).toBe('x');
  });

  it('knows its formats and refuses others as a usage error', () => {
    expect(outputFormat(undefined)).toBe('table');
    expect(outputFormat('wide')).toBe('wide');
    expect(() => outputFormat('xml')).toThrow(expect.objectContaining({ exitCode: 2, message: 'unknown output format "xml"' }));
  });

  it('truncates to one line', () => {
    expect(truncate('a\n  b c', 10)).toBe('a b c');
    expect(truncate('abcdefghijkl', 5)).toBe('abcd…');
  });
});
