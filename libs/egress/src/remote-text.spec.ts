import { boundedText } from './remote-text';

describe('boundedText', () => {
  it('replaces control characters and cuts long text', () => {
    expect(boundedText('a\u0000b\u001bc\u0085d', 10)).toBe('a b c d');
    expect(boundedText('abcdef', 3)).toBe('abc…');
    expect(boundedText('abc', 3)).toBe('abc');
  });
});
