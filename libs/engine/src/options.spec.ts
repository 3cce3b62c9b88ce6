import { defaultReconcileOptions } from './options';

describe('defaultReconcileOptions', () => {
  it("uses Timoni's defaults: 5 m per component, impersonation on, 5 s wait polls", () => {
    const o = defaultReconcileOptions();
    expect([o.concurrency, o.componentTimeoutMs, o.pruneTimeoutMs, o.impersonate, o.overwriteOwnership]).toEqual([4, 300_000, 300_000, true, false]);
    expect(o.wait).toEqual({ intervalMs: 5000, initialIntervalMs: 250, failFast: true });
    expect(o.clock()).toBeInstanceOf(Date);
  });
});
