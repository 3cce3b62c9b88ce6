import { TenantScheduler, quarantineWorkers } from './tenant-scheduler';

interface J {
  tenant: string;
  op: string;
  name: string;
}

const job = (tenant: string, name = tenant, op = 'evaluate'): J => ({ tenant, op, name });

describe('TenantScheduler', () => {
  let clock: number;
  let s: TenantScheduler<J>;
  beforeEach(() => {
    clock = 1_000;
    s = new TenantScheduler<J>({ quarantineWorkers: 1, quarantineMs: 60_000, now: () => clock });
  });

  function takeAll(running: J[] = []): string[] {
    const out: string[] = [];
    for (let j = s.next(running); j; j = s.next(running)) out.push(j.name);
    return out;
  }

  it('serves tenants round-robin, each in its own order', () => {
    for (const n of ['a1', 'a2', 'a3']) s.push(job('a', n));
    for (const n of ['b1', 'b2']) s.push(job('b', n));
    s.push(job('c', 'c1'));
    expect(s.size).toBe(6);
    expect(takeAll()).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    expect(s.size).toBe(0);
  });

  it('puts a tenant just served behind one that was waiting', () => {
    s.push(job('a', 'a1'));
    expect(s.next([])!.name).toBe('a1');
    s.push(job('b', 'b1'));
    s.push(job('a', 'a2'));
    expect(takeAll()).toEqual(['b1', 'a2']);
  });

  it('holds back quarantined tenants while they use their share of workers, keeping their turn', () => {
    const struck = job('x', 'x0');
    s.strike(struck);
    s.push(job('x', 'x1'));
    s.push(job('x', 'x2'));
    s.push(job('h', 'h1'));
    const x1 = s.next([])!;
    expect(x1.name).toBe('x1');
    expect(s.quarantinedRunning([x1])).toBe(1);
    expect(takeAll([x1])).toEqual(['h1']);
    expect(s.next([x1])).toBeUndefined();
    expect(s.size).toBe(1);
    expect(s.next([])!.name).toBe('x2');
  });

  it('ends a quarantine after quarantineMs', () => {
    s.strike(job('x'));
    clock += 59_999;
    expect(s.isQuarantined('x')).toBe(true);
    expect(s.quarantinedTenants()).toBe(1);
    clock += 1;
    expect(s.isQuarantined('x')).toBe(false);
    expect(s.quarantinedTenants()).toBe(0);
  });

  it('ends a quarantine on a clean call of the op that struck, not of another op', () => {
    s.strike(job('x', 'x0', 'evaluate'));
    s.clean(job('x', 'x1', 'mergeValues'));
    expect(s.isQuarantined('x')).toBe(true);
    s.clean(job('y', 'y1', 'evaluate'));
    expect(s.isQuarantined('x')).toBe(true);
    s.clean(job('x', 'x2', 'evaluate'));
    expect(s.isQuarantined('x')).toBe(false);
  });

  it('drains every queued call', () => {
    s.push(job('a', 'a1'));
    s.push(job('b', 'b1'));
    expect(s.drain().map((j) => j.name)).toEqual(['a1', 'b1']);
    expect(s.size).toBe(0);
    expect(s.next([])).toBeUndefined();
  });

  it('gives quarantined tenants half the pool, at least one worker', () => {
    expect([1, 2, 3, 4, 8].map(quarantineWorkers)).toEqual([1, 1, 1, 2, 4]);
  });
});
