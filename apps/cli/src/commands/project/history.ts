// `flotilla project history NAME`: the runs (reconciliations) per cluster,
// newest first, following the API's `continue` tokens.
import type { Command } from 'commander';
import { examples, seg, withOutput, type Cli } from '../../cli';
import { UsageError } from '../../errors';
import type { Run, Target } from '../../hub/types';
import { phaseColour, printData, printTable, truncate } from '../../output/format';
import { ago, duration } from '../../output/time';
import { notFound } from './not-found';

export function registerProjectHistory(parent: Command, cli: Cli): void {
  const cmd = withOutput(parent.command('history <name>').description('the runs of the Project on each cluster: trigger, result, revision'))
    .option('--cluster <name>', 'only this cluster')
    .option('--limit <n>', 'at most this many runs per cluster', '20')
    .action(async (name: string, opts: { output?: string; cluster?: string; limit: string }) => {
      const format = cli.format(opts);
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit "${opts.limit}" must be a positive whole number`);
      const hub = cli.hub();
      await hub.get(`/projects/${seg(name)}`, notFound(name));
      const clusters = opts.cluster ? [opts.cluster] : (await hub.all<Target>(`/projects/${seg(name)}/targets`)).map((t) => t.cluster);
      const runs: Array<Run & { cluster: string }> = [];
      for (const cluster of clusters) {
        const page = await hub.history<Run>(`/projects/${seg(name)}/targets/${seg(cluster)}/runs`, limit, {}).catch((err: unknown) => {
          if (opts.cluster && err instanceof Error && /not found/i.test(err.message)) throw new UsageError(`project "${name}" has no target on cluster "${opts.cluster}"`, `run \`flotilla project status ${name}\` to see its clusters`);
          throw err;
        });
        runs.push(...page.map((r) => ({ ...r, cluster })));
      }
      if (printData(cli.io, format, runs)) return;
      const now = cli.io.now();
      const rows = runs.map((r) => [r.cluster, ago(r.startedAt, now), r.trigger, phaseColour(cli.io, r.result), r.revision ?? '-', duration(r.durationMs), truncate(r.error ?? '', format === 'wide' ? 1000 : 70)]);
      printTable(cli.io, ['CLUSTER', 'STARTED', 'TRIGGER', 'RESULT', 'REVISION', 'DURATION', 'ERROR'], rows, `no runs yet for project "${name}"`);
    });
  examples(cmd, ['flotilla project history shop', 'flotilla project history shop --cluster prod-eu --limit 100 -o yaml']);
}
