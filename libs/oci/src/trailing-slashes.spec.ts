import { trimTrailingSlashes } from './trailing-slashes';

describe('trimTrailingSlashes', () => {
  it.each([
    ['https://hub/api//', 'https://hub/api'],
    ['a/b', 'a/b'],
    ['///', ''],
    ['', ''],
    ['/a/', '/a'],
  ])('%j → %j', (text, want) => expect(trimTrailingSlashes(text)).toBe(want));

  it('reads the quadratic case of the old expression in one pass', () => {
    expect(trimTrailingSlashes(`${'/'.repeat(100_000)}x${'/'.repeat(100_000)}`)).toBe(`${'/'.repeat(100_000)}x`);
  });
});
