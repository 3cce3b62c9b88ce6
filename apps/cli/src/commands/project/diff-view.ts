// How a fleet diff reads on a terminal: a table of clusters with their
// counts, then each cluster's changes with their unified diffs.
import type { Io } from '../../io';
import { painter, table, truncate } from '../../output/format';

export interface DiffObject {
  subject: string;
  instance: string;
  component: string;
  action: 'created' | 'changed' | 'pruned';
  diff: string;
}

export interface ClusterDiff {
  cluster: string;
  group: string;
  mode: string;
  state: 'diffed' | 'skipped' | 'failed';
  message: string | null;
  revision: string | null;
  counts: { created: number; changed: number; pruned: number; unchanged: number };
  objects: DiffObject[];
  errors: Array<{ component: string; message: string }>;
}

export interface FleetDiff {
  project: string;
  source: string;
  clusters: ClusterDiff[];
}

export const hasChanges = (c: ClusterDiff) => c.objects.length > 0;

export function printFleetDiff(io: Io, diff: FleetDiff, wide: boolean): void {
  const p = painter(io);
  const state = (c: ClusterDiff) => (c.state === 'failed' ? p.red(c.state) : c.state === 'skipped' ? p.yellow(c.state) : hasChanges(c) ? p.yellow('changes') : p.green('in sync'));
  const revision = (r: string | null) => (!r ? '-' : wide ? r : r.replace(/(sha256:[0-9a-f]{12})[0-9a-f]+/, '$1…'));
  const rows = diff.clusters.map((c) => [
    c.cluster, c.group, c.mode, state(c), revision(c.revision),
    String(c.counts.created), String(c.counts.changed), String(c.counts.pruned), String(c.counts.unchanged),
    truncate(c.message ?? '', wide ? 1000 : 60),
  ]);
  io.out.write(`Project ${diff.project}  source ${diff.source}\n\n`);
  if (!rows.length) io.out.write('no Targets to diff\n');
  else io.out.write(table(['CLUSTER', 'GROUP', 'MODE', 'STATE', 'REVISION', 'CREATE', 'CHANGE', 'PRUNE', 'UNCHANGED', 'MESSAGE'], rows));

  for (const c of diff.clusters) {
    if (!hasChanges(c) && !c.errors.length && c.state === 'diffed') continue;
    io.out.write(`\n${p.bold(`== ${c.cluster}`)}\n`);
    // the table cuts messages short; a failure, or why a cluster was skipped, is read in full
    if (c.state === 'failed') io.out.write(`${p.red('failed:')} ${c.message ?? ''}\n`);
    if (c.state === 'skipped') io.out.write(`${p.yellow('skipped:')} ${c.message ?? ''}\n`);
    // '*': a note about the whole answer (an agent's diff too large to carry its texts)
    for (const e of c.errors) io.out.write(e.component === '*' ? `${p.yellow('note:')} ${e.message}\n` : `${p.red('error:')} component ${e.component} could not be diffed: ${e.message}\n`);
    for (const o of c.objects) {
      io.out.write(`${o.action} ${o.subject} (instance ${o.instance}, component ${o.component})\n`);
      if (o.diff) io.out.write(colourDiff(o.diff, p));
    }
  }
  const changed = diff.clusters.filter(hasChanges).length;
  io.out.write(`\n${changed} of ${diff.clusters.length} cluster${diff.clusters.length === 1 ? '' : 's'} would change; nothing was applied\n`);
}

function colourDiff(text: string, p: ReturnType<typeof painter>): string {
  return text
    .split('\n')
    .map((l) => (l.startsWith('+++') || l.startsWith('---') ? p.bold(l) : l.startsWith('+') ? p.green(l) : l.startsWith('-') ? p.red(l) : l.startsWith('@@') ? p.dim(l) : l))
    .join('\n');
}
