import { FixedClock } from '../common/clock';
import type { TenantEntity } from '../database/entities';
import type { HubNotice, NotificationBus } from '../notify/notification-bus';
import type { TenantsRepository } from '../repositories/tenants.repository';
import { TENANT_REACH_TTL_MS, TenantReaches } from './tenant-reach';

function setup() {
  const rows = new Map<string, Partial<TenantEntity>>([['team-a', { name: 'team-a', destinations: { groups: ['a'] } as never }]]);
  const reads: string[][] = [];
  let gate: Promise<void> | undefined;
  const repo = {
    async findByNames(names: readonly string[]) {
      reads.push([...names]);
      const answer = names.flatMap((n) => (rows.has(n) ? [{ ...rows.get(n)! }] : []));
      if (gate) await gate;
      gate = undefined;
      return answer;
    },
  };
  const handlers: Array<(n: HubNotice) => void> = [];
  const bus = { on: (h: (n: HubNotice) => void) => handlers.push(h) };
  const clock = new FixedClock('2026-11-28T00:00:00Z');
  const reaches = new TenantReaches(repo as unknown as TenantsRepository, clock, bus as unknown as NotificationBus);
  const member = { tokenId: 't', name: 'm', role: 'viewer' as const, tenants: { 'team-a': 'viewer' as const } };
  return {
    reaches, reads, rows, clock, member,
    notify: (n: HubNotice) => handlers.forEach((h) => h(n)),
    /** the next read waits until `go()` */
    holdNextRead: () => {
      let open!: () => void;
      gate = new Promise<void>((r) => (open = r));
      return open;
    },
  };
}

describe('TenantReaches', () => {
  it('answers undefined for a global principal without reading', async () => {
    const s = setup();
    expect(await s.reaches.of({ tokenId: 'a', name: 'admin', role: 'admin' })).toBeUndefined();
    expect(s.reads).toEqual([]);
  });

  it('reads a member reach once per TTL, then again', async () => {
    const s = setup();
    expect(await s.reaches.of(s.member)).toEqual({ tenants: ['team-a'], destinations: [{ groups: ['a'] }] });
    await s.reaches.of(s.member);
    expect(s.reads).toHaveLength(1);
    s.clock.advance(TENANT_REACH_TTL_MS);
    await s.reaches.of(s.member);
    expect(s.reads).toHaveLength(2);
  });

  it('drops what it keeps when any replica changes a tenant', async () => {
    const s = setup();
    await s.reaches.of(s.member);
    s.rows.set('team-a', { name: 'team-a', destinations: { groups: ['b'] } as never });
    s.notify({ topic: 'tokens-revoked', tokenIds: [] });
    expect((await s.reaches.of(s.member))!.destinations).toEqual([{ groups: ['a'] }]);
    s.notify({ topic: 'tenants-changed' });
    expect((await s.reaches.of(s.member))!.destinations).toEqual([{ groups: ['b'] }]);
  });

  it('keeps nothing a read fetched before a change it overlapped', async () => {
    const s = setup();
    const go = s.holdNextRead();
    const pending = s.reaches.of(s.member);
    s.notify({ topic: 'tenants-changed' });
    go();
    expect((await pending)!.tenants).toEqual(['team-a']);
    await s.reaches.of(s.member);
    expect(s.reads).toHaveLength(2);
  });
});
