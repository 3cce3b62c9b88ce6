import { clusterIsTargeted, LABEL_SELECTOR_QUERY, matchesLabelSelector, parseLabelSelector, SelectorSyntaxError } from './selector';

const prodEu = { name: 'prod-eu-1', group: 'production', labels: { env: 'prod', region: 'eu', gpu: 'true' } };

describe('matchesLabelSelector', () => {
  it('needs every matchLabels pair and every expression', () => {
    expect(matchesLabelSelector({ matchLabels: { env: 'prod' } }, prodEu.labels)).toBe(true);
    expect(matchesLabelSelector({ matchLabels: { env: 'prod', region: 'us' } }, prodEu.labels)).toBe(false);
    expect(matchesLabelSelector({ matchExpressions: [{ key: 'region', operator: 'In', values: ['eu', 'us'] }] }, prodEu.labels)).toBe(true);
    expect(matchesLabelSelector({ matchExpressions: [{ key: 'region', operator: 'NotIn', values: ['eu'] }] }, prodEu.labels)).toBe(false);
    expect(matchesLabelSelector({ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] }, prodEu.labels)).toBe(true);
    expect(matchesLabelSelector({ matchExpressions: [{ key: 'gpu', operator: 'Exists' }] }, prodEu.labels)).toBe(true);
    expect(matchesLabelSelector({ matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist' }] }, prodEu.labels)).toBe(false);
  });

  it('matches everything when empty', () => {
    expect(matchesLabelSelector({}, {})).toBe(true);
  });
});

describe('clusterIsTargeted', () => {
  it('selects by name, by group or by labels', () => {
    expect(clusterIsTargeted({ names: ['prod-eu-1'] }, prodEu)).toBe(true);
    expect(clusterIsTargeted({ groups: ['production'] }, prodEu)).toBe(true);
    expect(clusterIsTargeted({ labelSelector: { matchLabels: { region: 'eu' } } }, prodEu)).toBe(true);
    expect(clusterIsTargeted({ names: ['other'], groups: ['staging'], labelSelector: { matchLabels: { region: 'us' } } }, prodEu)).toBe(false);
  });

  it('selects nothing when nothing is given', () => {
    expect(clusterIsTargeted({}, prodEu)).toBe(false);
  });
});

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

  it.each(['env=prod,', 'region in (eu', 'a b c', 'x=(y)'])('rejects %j with a message naming it', (text) => {
    expect(() => parseLabelSelector(text)).toThrow(SelectorSyntaxError);
    expect(() => parseLabelSelector(text)).toThrow(`labelSelector "${text}"`);
  });
});

describe('LABEL_SELECTOR_QUERY, the pattern the OpenAPI document publishes', () => {
  const parses = (text: string) => {
    try {
      parseLabelSelector(text);
      return true;
    } catch {
      return false;
    }
  };
  it.each(['env=prod', 'env==prod,tier!=db', ' env in (a, b) , !legacy ', 'a notin ()', 'example.com/k=v', 'k', 'k='])('accepts %j, which the parser reads', (text) => {
    expect(LABEL_SELECTOR_QUERY.test(text)).toBe(true);
    expect(parses(text)).toBe(true);
  });
  it.each(['', 'env=prod,', 'region in (eu', 'a b c', 'x=(y)', 'a\tb=c', 'é=1'])('refuses %j', (text) => expect(LABEL_SELECTOR_QUERY.test(text)).toBe(false));
});
