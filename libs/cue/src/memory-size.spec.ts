import { parseMemorySize } from './memory-size';

describe('parseMemorySize', () => {
  it('reads bytes and binary units', () => {
    expect(parseMemorySize('402653184')).toBe(402653184);
    expect(parseMemorySize('64Ki')).toBe(65536);
    expect(parseMemorySize('384Mi')).toBe(384 * 1048576);
    expect(parseMemorySize(' 1Gi ')).toBe(1073741824);
  });

  it('refuses anything else', () => {
    for (const bad of ['', 'Mi', '1.5Gi', '-1Mi', '1MB', '1mi', '1 Gi', '1Gi2', 'toString', '1toString', '9999999999999999Gi']) {
      expect(parseMemorySize(bad)).toBeUndefined();
    }
  });
});
