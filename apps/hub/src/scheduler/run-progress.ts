import { type Condition, progressStatus, type ReportComponent, type ReportInstance } from '@flotilla/engine';

/**
 * What a run has done so far, as the Target shows it while the run goes on:
 * the components it has reached (status `Running`), the instances applied,
 * and what a waiting component waits for. The finished report replaces it.
 */
export class RunProgress {
  private readonly components = new Map<string, ReportComponent>();
  private waits: string | undefined;

  constructor(private readonly revision: string) {}

  applied(i: ReportInstance): void {
    const c = this.component(i.component);
    c.instances = [...c.instances.filter((x) => x.name !== i.name || x.namespace !== i.namespace), i];
    c.durationMs += i.durationMs;
    if (c.waitingFor) delete c.waitingFor;
  }

  waiting(component: string, instance: { name: string; namespace: string }, objects: string[], timeoutMs: number): void {
    this.component(component).waitingFor = objects;
    const shown = objects.slice(0, 5).join(', ') + (objects.length > 5 ? ` and ${objects.length - 5} more` : '');
    this.waits = `revision ${this.revision}: component ${component} waits for instance ${instance.namespace}/${instance.name} to be healthy (${shown}); at most ${Math.ceil(timeoutMs / 1000)} s left`;
  }

  snapshot(): ReportComponent[] {
    return [...this.components.values()].map((c) => ({ ...c, instances: [...c.instances], ...(c.waitingFor ? { waitingFor: [...c.waitingFor] } : {}) }));
  }

  /** Reconciling says what the run does now (the engine's progressStatus). */
  conditions(previous: readonly Condition[], now: Date): Condition[] {
    return progressStatus(this.waits ?? `revision ${this.revision}: applying`, now, previous);
  }

  private component(name: string): ReportComponent {
    let c = this.components.get(name);
    if (!c) {
      c = { name, status: 'Running', durationMs: 0, declared: [], instances: [] };
      this.components.set(name, c);
    }
    return c;
  }
}
