import { ForeignProjectError, HUB_MANAGED_SELECTOR, isHubManaged } from './project-ownership';

describe('isHubManaged', () => {
  const withLabels = (labels?: Record<string, string>) => ({ metadata: { name: 'shop', namespace: 'ns', ...(labels ? { labels } : {}) } });

  it('is true only with the hub\'s managed-by value', () => {
    expect(isHubManaged(withLabels({ 'app.kubernetes.io/managed-by': 'flotilla-hub' }))).toBe(true);
    expect(isHubManaged(withLabels({ 'app.kubernetes.io/managed-by': 'flotilla' }))).toBe(false);
    expect(isHubManaged(withLabels({ 'app.kubernetes.io/managed-by': 'Helm' }))).toBe(false);
    expect(isHubManaged(withLabels({}))).toBe(false);
    expect(isHubManaged(withLabels())).toBe(false);
  });

  it('selects what it recognises', () => {
    expect(HUB_MANAGED_SELECTOR).toBe('app.kubernetes.io/managed-by=flotilla-hub');
  });
});

describe('ForeignProjectError', () => {
  it('names the Project, the label it lacks and what to do, and keeps its cause', () => {
    const cause = new Error('409');
    const err = new ForeignProjectError('ns', 'shop', { cause });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('ForeignProjectError');
    expect(err.message).toContain('Project ns/shop already exists in the cluster and was not made by the hub');
    expect(err.message).toContain('app.kubernetes.io/managed-by=flotilla-hub');
    expect(err.message).toContain('give the hub\'s Project another name or namespace');
    expect(err.cause).toBe(cause);
  });
});
