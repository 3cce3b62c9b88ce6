// The text of `project status`: the Project, then one row per cluster
// (phase, revision, Ready condition, next run or retry), and with -o wide
// one row per component instance.
import type { Cli } from '../../cli';
import type { Project, Target } from '../../hub/types';
import { painter, phaseColour, table, truncate } from '../../output/format';
import { ago, duration } from '../../output/time';

export function renderStatus(cli: Cli, project: Project, targets: Target[], wide: boolean): string {
  const p = painter(cli.io);
  const now = cli.io.now();
  const state = project.status.deleting ? 'deleting' : project.suspend ? 'suspended' : 'active';
  let out = `${p.bold(`Project ${project.name}`)}  namespace ${project.namespace}  source ${project.source.repository}:${project.source.tag}  generation ${project.generation}  ${state}\n`;
  const unhealthy = project.status.unhealthy ? `, ${p.yellow(`${project.status.unhealthy} unhealthy`)}` : '';
  out += `Targets: ${project.status.ready}/${project.status.targets} ready${unhealthy}\n\n`;
  if (!targets.length) return `${out}no targets: no registered cluster matches the Project's targets\n`;
  const rows = targets.map((t) => {
    const ready = t.conditions.find((c) => c.type === 'Ready');
    const due = t.nextRunAt === null ? '-' : Date.parse(t.nextRunAt) <= now.getTime() ? 'due now' : ago(t.nextRunAt, now);
    const next = t.phase === 'Suspended' || t.nextRunAt === null ? '-' : t.attempt > 0 ? `retry ${due} (attempt ${t.attempt})` : due;
    const conds = t.conditions.map((c) => `${c.type}=${c.status}`).join(',') || '-';
    return [t.cluster, t.clusterGroup, phaseOf(cli, t), t.lastAppliedRevision ? shortRevision(t.lastAppliedRevision, wide) : '-', conds, ready?.reason ?? '-', next, truncate(ready?.message ?? '', wide ? 200 : 60)];
  });
  out += table(['CLUSTER', 'GROUP', 'PHASE', 'REVISION', 'CONDITIONS', 'REASON', 'NEXT RUN', 'MESSAGE'], rows);
  if (!wide) return out;
  const instances = targets.flatMap((t) =>
    t.components.flatMap((c) =>
      c.instances.length
        ? c.instances.map((i) => {
            const n = i.counts;
            return [t.cluster, c.name, phaseColour(cli.io, c.status), `${i.namespace}/${i.name}`, i.module ? `${i.module.name}@${i.module.version}` : '-', i.action, i.ready ? 'true' : 'false', `+${n.created} ~${n.configured} =${n.unchanged} -${n.deleted}`, duration(i.durationMs), truncate(i.error?.message ?? '', 80)];
          })
        : [[t.cluster, c.name, phaseColour(cli.io, c.status), '-', '-', '-', '-', '-', duration(c.durationMs), truncate(c.error?.message ?? '', 80)]],
    ),
  );
  if (instances.length) out += `\n${table(['CLUSTER', 'COMPONENT', 'STATUS', 'INSTANCE', 'MODULE', 'ACTION', 'READY', 'CHANGES', 'DURATION', 'ERROR'], instances)}`;
  return out;
}

/**
 * The phase, except that Ready without a Healthy=True condition (what was
 * applied is not healthy) reads `Ready (Unhealthy)` in yellow, never a plain
 * green Ready: the rule the hub's fleet state Unhealthy follows.
 */
function phaseOf(cli: Cli, t: Target): string {
  if (t.phase === 'Ready' && !t.conditions.some((c) => c.type === 'Healthy' && c.status === 'True')) return painter(cli.io).yellow('Ready (Unhealthy)');
  return phaseColour(cli.io, t.phase);
}

/** `tag@sha256:0123456789ab` in tables; the full digest with -o wide. */
function shortRevision(rev: string, wide: boolean): string {
  return wide ? rev : rev.replace(/(sha256:[0-9a-f]{12})[0-9a-f]+/, '$1');
}
