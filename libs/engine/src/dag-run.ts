// Runs tasks in dependency order: a task starts once all it needs have
// succeeded, at most `concurrency` at a time, ready ones in declaration
// order. A failure stops only its dependents (transitively); the rest go on.

export interface DagNode {
  name: string;
  needs: readonly string[];
}

export type DagOutcome<T> =
  | { status: 'succeeded'; value: T }
  | { status: 'failed'; value?: T; error?: unknown }
  /** not run: `blockedBy` lists the direct needs that did not succeed */
  | { status: 'skipped'; blockedBy: string[] };

export interface DagRunOptions<T> {
  /** tasks running at once (at least 1) */
  concurrency: number;
  /** decides whether a resolved value counts as success; default: every resolved value does */
  succeeded?: (value: T) => boolean;
}

export class DagCycleError extends Error {
  constructor(readonly cycle: string[]) {
    super(`components form a cycle: ${cycle.join(' -> ')}`);
    this.name = 'DagCycleError';
  }
}

/** Unknown needs and cycles, checked before anything runs. */
export function checkDag(nodes: readonly DagNode[]): void {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  for (const n of nodes) {
    for (const dep of n.needs) if (!byName.has(dep)) throw new Error(`component ${n.name} needs unknown component "${dep}"`);
  }
  const state = new Map<string, 'active' | 'done'>();
  const stack: string[] = [];
  const visit = (name: string): void => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'active') throw new DagCycleError([...stack.slice(stack.indexOf(name)), name]);
    state.set(name, 'active');
    stack.push(name);
    for (const dep of byName.get(name)!.needs) visit(dep);
    stack.pop();
    state.set(name, 'done');
  };
  for (const n of nodes) visit(n.name);
}

/** Runs every node; resolves with one outcome per node once all have settled. */
export async function runDag<T>(nodes: readonly DagNode[], run: (name: string) => Promise<T>, options: DagRunOptions<T>): Promise<Map<string, DagOutcome<T>>> {
  checkDag(nodes);
  const limit = Math.max(1, Math.floor(options.concurrency));
  const ok = options.succeeded ?? (() => true);
  const outcomes = new Map<string, DagOutcome<T>>();
  const pending = [...nodes];
  let running = 0;

  return new Promise((resolve) => {
    const pump = (): void => {
      // Settle what can no longer run, then start what can, in declaration order.
      let changed = true;
      while (changed) {
        changed = false;
        for (const n of [...pending]) {
          const blockedBy = n.needs.filter((d) => {
            const o = outcomes.get(d);
            return o !== undefined && o.status !== 'succeeded';
          });
          if (blockedBy.length > 0) {
            outcomes.set(n.name, { status: 'skipped', blockedBy });
            pending.splice(pending.indexOf(n), 1);
            changed = true;
          }
        }
      }
      for (const n of [...pending]) {
        if (running >= limit) break;
        if (!n.needs.every((d) => outcomes.get(d)?.status === 'succeeded')) continue;
        pending.splice(pending.indexOf(n), 1);
        running++;
        run(n.name).then(
          (value) => finish(n.name, ok(value) ? { status: 'succeeded', value } : { status: 'failed', value }),
          (error: unknown) => finish(n.name, { status: 'failed', error }),
        );
      }
      if (running === 0 && pending.length === 0) resolve(outcomes);
    };
    const finish = (name: string, outcome: DagOutcome<T>): void => {
      running--;
      outcomes.set(name, outcome);
      pump();
    };
    pump();
  });
}
