import { destinationsCondition, reachVariesInShape } from './destinations-sql';
import { SqlParams } from './sql';

describe('a reach in SQL', () => {
  const reach = (destinations: Parameters<typeof destinationsCondition>[1]) => ({ tenants: ['t'], destinations: [...destinations] });

  it('writes one text for reaches that differ only in their values, so it can stay prepared', () => {
    const text = (groups: string[], labels: Record<string, string>) => destinationsCondition('c', [{ groups }, { labelSelector: { matchLabels: labels } }], new SqlParams());
    expect(text(['a'], { env: 'prod' })).toBe(text(['b', 'c', 'd'], { region: 'eu', tier: 'gold' }));
    expect(reachVariesInShape(reach([{ groups: ['a', 'b'] }, { labelSelector: { matchLabels: { env: 'prod' } } }]))).toBe(false);
    expect(reachVariesInShape(undefined)).toBe(false);
  });

  it('is planned per request when its text follows a selector\'s expressions', () => {
    expect(reachVariesInShape(reach([{ labelSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] } }]))).toBe(true);
  });

  it('is planned per request past four label destinations, which bounds the texts kept per connection', () => {
    const labelled = (n: number) => reach(Array.from({ length: n }, (_, i) => ({ labelSelector: { matchLabels: { team: `t${i}` } } })));
    expect(reachVariesInShape(labelled(4))).toBe(false);
    expect(reachVariesInShape(labelled(5))).toBe(true);
  });
});
