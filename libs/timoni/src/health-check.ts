// Module health checks (§5.6) against a live object: the check is picked by
// group/kind (exact kind beats group-wide), the object filled into its
// #object, then inProgress, failed, current read in that order.
import { createHash } from 'node:crypto';
import { CueEvaluationError, type CueEngine } from '@flotilla/cue';
import { stringifyExactJson } from '@flotilla/json';
import { LruPromiseCache } from './build-cache';
import type { HealthCheckEvaluator, HealthCheckTarget, HealthResult, InstanceBuild, KubeObject, TenantOptions } from './types';

export function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

/** The check for an object's group/kind, if any. */
export function matchHealthCheck(checks: readonly HealthCheckTarget[], obj: Pick<KubeObject, 'apiVersion' | 'kind'>): HealthCheckTarget | undefined {
  const group = groupOf(obj.apiVersion);
  return checks.find((c) => c.group === group && c.kind === obj.kind) ?? checks.find((c) => c.group === group && c.kind === undefined);
}

const quote = (label: string) => (/^[A-Za-z][A-Za-z0-9_]*$/.test(label) ? label : JSON.stringify(label));

/** libs/kube's HealthCheckEvaluator over one instance build. */
export class CueHealthCheckEvaluator implements HealthCheckEvaluator {
  // Polls of an unchanged object give the same answer: evaluated once.
  private readonly results = new LruPromiseCache<boolean[]>(256);

  constructor(
    private readonly cue: CueEngine,
    private readonly build: Pick<InstanceBuild, 'healthChecks' | 'context'>,
    private readonly options: TenantOptions = {},
  ) {}

  /** Evaluations made and answers reused. */
  stats() {
    return this.results.stats();
  }

  async evaluate(obj: KubeObject): Promise<HealthResult | undefined> {
    const check = matchHealthCheck(this.build.healthChecks, obj);
    if (!check) return undefined;
    if (obj.metadata.deletionTimestamp) return { status: 'Terminating', message: 'Resource scheduled for deletion' };
    const base = `timoni.healthChecks.${quote(check.name)}`;
    const fields = ['inProgress', 'failed', 'current'] as const;
    // One evaluation for all three; when one is incomplete (JSON export fails),
    // each is evaluated alone and an incomplete or failing one counts as false.
    const key = createHash('sha256').update(check.name).update('\0').update(stringifyExactJson(obj)).digest('hex');
    const [inProgress, failed, current] = await this.results.getOrCreate(key, async () => {
      const all = await this.read(base, obj, fields).catch((err: unknown) => {
        if (err instanceof CueEvaluationError) return undefined;
        throw err;
      });
      return (
        all ??
        Promise.all(
          fields.map((f) =>
            this.read(base, obj, [f]).then(
              ([v]) => v,
              (err: unknown) => {
                if (err instanceof CueEvaluationError) return false;
                throw err;
              },
            ),
          ),
        )
      );
    });
    if (inProgress) return { status: 'InProgress', message: `health check ${check.name}: in progress` };
    if (failed) return { status: 'Failed', message: `health check ${check.name}: failed` };
    if (current) return { status: 'Current', message: `health check ${check.name}: current` };
    return { status: 'InProgress', message: `health check ${check.name}: not current yet` };
  }

  private async read(base: string, obj: KubeObject, fields: readonly string[]): Promise<boolean[]> {
    const ctx = this.build.context;
    const res = await this.cue.evaluate({
      files: ctx.tree,
      dir: ctx.dir,
      package: ctx.package,
      tags: ctx.tags,
      tagVars: ctx.tagVars,
      fills: [{ path: `${base}.#object`, json: obj }],
      exports: fields.map((f) => ({ path: `${base}.${f}`, optional: true })),
    }, { tenant: this.options.tenant });
    return res.exports.map((e) => e.exists && e.json === 'true');
  }
}
