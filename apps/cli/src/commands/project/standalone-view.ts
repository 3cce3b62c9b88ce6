// `project list` and `project status` of Project resources on a standalone
// cluster, drawn from the status the agent writes.
import type { Cli } from '../../cli';
import type { ProjectResource } from '../../local/standalone';
import { SUSPEND } from '../../local/standalone';
import { phaseColour, table, truncate } from '../../output/format';
import { ago } from '../../output/time';

function ready(p: ProjectResource) {
  return p.status?.conditions?.find((c) => c.type === 'Ready');
}

export function renderResourceList(cli: Cli, items: ProjectResource[]): string {
  const now = cli.io.now();
  const rows = items.map((p) => {
    const r = ready(p);
    return [p.metadata.namespace ?? '-', p.metadata.name, r ? phaseColour(cli.io, r.status) : '-', r?.reason ?? '-', p.metadata.annotations?.[SUSPEND] === 'true' ? 'true' : 'false', p.status?.lastAppliedRevision ?? '-', ago(p.metadata.creationTimestamp, now).replace(' ago', '')];
  });
  return rows.length ? table(['NAMESPACE', 'NAME', 'READY', 'REASON', 'SUSPENDED', 'REVISION', 'AGE'], rows) : 'no Projects\n';
}

export function renderResourceStatus(cli: Cli, p: ProjectResource, wide: boolean): string {
  const now = cli.io.now();
  const s = p.status ?? {};
  const suspended = p.metadata.annotations?.[SUSPEND] === 'true';
  let out = `Project ${p.metadata.namespace}/${p.metadata.name}  source ${p.spec.source.repository}:${p.spec.source.tag ?? 'latest'}  ${suspended ? 'suspended' : 'active'}\n`;
  out += `Revision: ${s.lastAppliedRevision ?? '-'}  next run: ${s.nextReconcileAt ? ago(s.nextReconcileAt, now) : '-'}${s.failures ? `  failures: ${s.failures}` : ''}\n\n`;
  const conds = (s.conditions ?? []).map((c) => [c.type, phaseColour(cli.io, c.status), c.reason, truncate(c.message, wide ? 1000 : 80)]);
  out += conds.length ? table(['CONDITION', 'STATUS', 'REASON', 'MESSAGE'], conds) : 'no status yet: is the agent running in this cluster?\n';
  const instances = (s.components ?? []).flatMap((c) =>
    c.instances.map((i) => [c.name, phaseColour(cli.io, c.status), `${i.namespace}/${i.name}`, i.module ? `${i.module.name}@${i.module.version}` : '-', String(i.ready), String(i.objects), truncate(i.error ?? '', wide ? 1000 : 60)]),
  );
  if (instances.length) out += `\n${table(['COMPONENT', 'STATUS', 'INSTANCE', 'MODULE', 'READY', 'OBJECTS', 'ERROR'], instances)}`;
  return out;
}
