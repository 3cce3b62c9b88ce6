import { checkDag, DagCycleError, runDag, type DagNode } from './dag-run';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('runDag', () => {
  it('runs dependencies first and independent nodes in parallel up to the bound', async () => {
    const nodes: DagNode[] = [
      { name: 'app', needs: ['infra', 'db'] },
      { name: 'infra', needs: [] },
      { name: 'db', needs: [] },
      { name: 'cache', needs: [] },
      { name: 'mon', needs: [] },
    ];
    const log: string[] = [];
    let running = 0;
    let peak = 0;
    const outcomes = await runDag(
      nodes,
      async (name) => {
        running++;
        peak = Math.max(peak, running);
        log.push(`start ${name}`);
        await sleep(20);
        log.push(`end ${name}`);
        running--;
        return name.toUpperCase();
      },
      { concurrency: 2 },
    );
    expect(peak).toBe(2);
    // Ready ones start in declaration order: infra and db first.
    expect(log.slice(0, 2)).toEqual(['start infra', 'start db']);
    expect(log.indexOf('start app')).toBeGreaterThan(log.indexOf('end infra'));
    expect(log.indexOf('start app')).toBeGreaterThan(log.indexOf('end db'));
    expect(outcomes.get('app')).toEqual({ status: 'succeeded', value: 'APP' });
    expect([...outcomes.keys()].sort()).toEqual(['app', 'cache', 'db', 'infra', 'mon']);
  });

  it('a failure skips its dependents transitively and leaves the others running', async () => {
    const nodes: DagNode[] = [
      { name: 'base', needs: [] },
      { name: 'mid', needs: ['base'] },
      { name: 'top', needs: ['mid'] },
      { name: 'other', needs: [] },
      { name: 'after-other', needs: ['other'] },
    ];
    const ran: string[] = [];
    const outcomes = await runDag(
      nodes,
      async (name) => {
        ran.push(name);
        if (name === 'base') throw new Error('boom');
        return name;
      },
      { concurrency: 1 },
    );
    expect(ran.sort()).toEqual(['after-other', 'base', 'other']);
    expect(outcomes.get('base')).toMatchObject({ status: 'failed', error: new Error('boom') });
    expect(outcomes.get('mid')).toEqual({ status: 'skipped', blockedBy: ['base'] });
    expect(outcomes.get('top')).toEqual({ status: 'skipped', blockedBy: ['mid'] });
    expect(outcomes.get('after-other')).toEqual({ status: 'succeeded', value: 'after-other' });
  });

  it('uses the succeeded predicate for resolved values', async () => {
    const outcomes = await runDag(
      [{ name: 'a', needs: [] }, { name: 'b', needs: ['a'] }],
      async (name) => ({ name, ok: false }),
      { concurrency: 4, succeeded: (v) => v.ok },
    );
    expect(outcomes.get('a')).toEqual({ status: 'failed', value: { name: 'a', ok: false } });
    expect(outcomes.get('b')).toEqual({ status: 'skipped', blockedBy: ['a'] });
  });

  it('resolves at once for no nodes', async () => {
    expect((await runDag([], async () => 1, { concurrency: 1 })).size).toBe(0);
  });
});

describe('checkDag', () => {
  it('names a cycle', () => {
    const err = (() => {
      try {
        checkDag([{ name: 'a', needs: ['b'] }, { name: 'b', needs: ['c'] }, { name: 'c', needs: ['a'] }]);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(DagCycleError);
    expect((err as DagCycleError).cycle).toEqual(['a', 'b', 'c', 'a']);
  });

  it('rejects unknown needs', () => {
    expect(() => checkDag([{ name: 'a', needs: ['ghost'] }])).toThrow('component a needs unknown component "ghost"');
  });
});
