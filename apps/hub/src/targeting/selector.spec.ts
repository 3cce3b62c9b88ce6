import { clusterIsTargeted, matchesLabelSelector } from './selector';

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
