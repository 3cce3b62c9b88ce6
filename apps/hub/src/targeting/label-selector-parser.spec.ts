import { labelSelectorProblem, parseLabelSelector, SelectorSyntaxError } from './label-selector-parser';

/** The selector that froze the hub: `k in (a`, `gaps` times two spaces and a comma, then a tab and ")". */
const attackSelector = (gaps: number, end = '\t)'): string => `k in (a${'  ,'.repeat(gaps)}${end}`;

function errorOf(text: string): SelectorSyntaxError {
  try {
    parseLabelSelector(text);
  } catch (err) {
    if (err instanceof SelectorSyntaxError) return err;
    throw err;
  }
  throw new Error(`${JSON.stringify(text)} parsed`);
}

describe('parseLabelSelector', () => {
  it('reads the kubectl forms', () => {
    expect(parseLabelSelector('env=prod, tier!=db,gpu,!legacy,region in (eu, us),zone notin (a)')).toEqual({
      matchLabels: { env: 'prod' },
      matchExpressions: [
        { key: 'tier', operator: 'NotIn', values: ['db'] },
        { key: 'gpu', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist' },
        { key: 'region', operator: 'In', values: ['eu', 'us'] },
        { key: 'zone', operator: 'NotIn', values: ['a'] },
      ],
    });
    expect(parseLabelSelector('example.com/team==core').matchLabels).toEqual({ 'example.com/team': 'core' });
  });

  it.each([
    ['env=prod', { matchLabels: { env: 'prod' }, matchExpressions: [] }],
    ['  env  =  prod  ', { matchLabels: { env: 'prod' }, matchExpressions: [] }],
    ['k=', { matchLabels: { k: '' }, matchExpressions: [] }],
    ['k', { matchLabels: {}, matchExpressions: [{ key: 'k', operator: 'Exists' }] }],
    ['! k', { matchLabels: {}, matchExpressions: [{ key: 'k', operator: 'DoesNotExist' }] }],
    ['k in(a)', { matchLabels: {}, matchExpressions: [{ key: 'k', operator: 'In', values: ['a'] }] }],
    ['k notin ( a , b )', { matchLabels: {}, matchExpressions: [{ key: 'k', operator: 'NotIn', values: ['a', 'b'] }] }],
    ['a notin ()', { matchLabels: {}, matchExpressions: [{ key: 'a', operator: 'NotIn', values: [''] }] }],
    ['in in (in),notin', { matchLabels: {}, matchExpressions: [{ key: 'in', operator: 'In', values: ['in'] }, { key: 'notin', operator: 'Exists' }] }],
    ['k=v.1-x_y', { matchLabels: { k: 'v.1-x_y' }, matchExpressions: [] }],
  ])('reads %j', (text, selector) => {
    expect(parseLabelSelector(text)).toEqual(selector);
  });

  it('keeps a second value for one key as a further condition, not a replacement', () => {
    expect(parseLabelSelector('tier=gold,tier=silver')).toEqual({ matchLabels: { tier: 'gold' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['silver'] }] });
  });

  it.each([
    ['', 1, 'expected a label key (starting with a letter or digit), found the end'],
    ['env=prod,', 10, 'expected a label key (starting with a letter or digit), found the end'],
    ['region in (eu', 14, 'expected "," or ")" in the list of values, found the end'],
    ['a b c', 3, 'expected =, ==, !=, in, notin or "," after key "a", found "b"'],
    ['x=(y)', 3, 'expected a value of letters, digits, "-", "_" or "." followed by "," or the end, found "("'],
    ['a\tb=c', 2, 'expected =, ==, !=, in, notin or "," after key "a", found "\\t"'],
    ['é=1', 1, 'expected a label key (starting with a letter or digit), found "é"'],
    ['k!v', 3, 'expected "=" after "!", found "v"'],
    ['kin(a)', 4, 'expected =, ==, !=, in, notin or "," after key "kin", found "("'],
    ['k in a', 6, 'expected "(" to open the list of values, found "a"'],
    ['k=a/b', 4, 'expected a value of letters, digits, "-", "_" or "." followed by "," or the end, found "/"'],
    ['k=v)', 4, 'expected a value of letters, digits, "-", "_" or "." followed by "," or the end, found ")"'],
    ['-k', 1, 'expected a label key (starting with a letter or digit), found "-"'],
    ['a,,b', 3, 'expected a label key (starting with a letter or digit), found ","'],
  ])('refuses %j at character %d', (text, position, detail) => {
    const err = errorOf(text);
    expect(err.position).toBe(position);
    expect(err.detail).toBe(`at character ${position}: ${detail}`);
    expect(err.message).toBe(`label selector: ${err.detail}`);
    expect(labelSelectorProblem(text)).toBe(err.detail);
  });

  it('reads the selector that froze the hub, at 2,000 gaps, in one pass', () => {
    // a tab is not a blank here: reading stops at it and names its position
    const text = attackSelector(2000);
    const err = errorOf(text);
    expect(err.position).toBe(text.length - 1);
    expect(err.detail).toContain('found "\\t"');
    // with a space instead it is a list of empty values
    const values = parseLabelSelector(attackSelector(2000, ' )')).matchExpressions?.[0].values;
    expect(values).toHaveLength(2001);
    expect(values?.slice(0, 2)).toEqual(['a', '']);
  });

  it('reads 4096-character selectors of every shape', () => {
    expect(errorOf(`k in (${'a,'.repeat(2045)}`).position).toBe(4097);
    expect(parseLabelSelector(`${'k'.repeat(4000)}=v`).matchLabels).toEqual({ ['k'.repeat(4000)]: 'v' });
    expect(parseLabelSelector(Array.from({ length: 1000 }, (_, i) => `k${i}`).join(',')).matchExpressions).toHaveLength(1000);
    expect(errorOf(`${' '.repeat(4095)}!`).position).toBe(4097);
  });

  it('agrees with labelSelectorProblem on what parses', () => {
    expect(labelSelectorProblem('env in (a, b) , !legacy')).toBeUndefined();
  });
});
