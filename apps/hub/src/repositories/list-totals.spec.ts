import { ListTotals } from './list-totals';

describe('ListTotals', () => {
  it('remembers a counted total with its version and reuses it when the database skipped counting', () => {
    const totals = new ListTotals();
    expect(totals.lookup('clusters')).toBeUndefined();
    expect(totals.resolve('clusters', undefined, { version: '7', total: 10 })).toBe(10);
    const sent = totals.lookup('clusters');
    expect(sent).toEqual({ version: '7', total: 10 });
    expect(totals.resolve('clusters', sent, { version: '7', total: null })).toBe(10);
    expect(totals.stats).toEqual({ reused: 1, counted: 1 });
  });

  it('answers with what was sent even when a concurrent query remembered a newer count meanwhile', () => {
    const totals = new ListTotals();
    totals.resolve('k', undefined, { version: '1', total: 3 });
    const sent = totals.lookup('k');
    totals.resolve('k', undefined, { version: '2', total: 4 });
    expect(totals.resolve('k', sent, { version: '1', total: null })).toBe(3);
    expect(totals.lookup('k')).toEqual({ version: '2', total: 4 });
  });

  it('refuses an answer that skipped counting though nothing was sent', () => {
    expect(() => new ListTotals().resolve('k', undefined, { version: '1', total: null })).toThrow(/no version was sent/);
  });

  it('forgets the least recently counted key past its bound', () => {
    const totals = new ListTotals(2);
    totals.resolve('a', undefined, { version: '1', total: 1 });
    totals.resolve('b', undefined, { version: '1', total: 2 });
    totals.resolve('a', undefined, { version: '2', total: 1 });
    totals.resolve('c', undefined, { version: '1', total: 3 });
    expect(totals.lookup('b')).toBeUndefined();
    expect(totals.lookup('a')).toEqual({ version: '2', total: 1 });
    expect(totals.lookup('c')).toEqual({ version: '1', total: 3 });
  });
});
