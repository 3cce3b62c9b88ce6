// `flotilla project diff NAME`: what a reconcile would change on each of the
// Project's clusters, by the hub's server-side dry run; nothing is applied.
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { buildArtifactImage, defaultArtifactImageOptions } from '@flotilla/oci';
import { examples, seg, withOutput, type Cli } from '../../cli';
import { CliError, EXIT_FAILURE, ExitStatus, UsageError, messageOf } from '../../errors';
import { printData } from '../../output/format';
import { withProgress } from '../../output/progress';
import { hasChanges, printFleetDiff, type FleetDiff } from './diff-view';

/** The hub's own limit on an uploaded artifact (base64 characters). */
const MAX_UPLOAD_BASE64 = 960_000;
/** The hub answers by its 90 s deadline; a little more for the transfer. */
const DIFF_TIMEOUT_MS = 120_000;
/** `--exit-code`: the diff worked and something would change. */
export const EXIT_CHANGES = 3;

interface DiffFlags {
  tag?: string;
  digest?: string;
  dir?: string;
  cluster?: string;
  group?: string;
  output?: string;
  exitCode?: boolean;
}

export function registerProjectDiff(parent: Command, cli: Cli): void {
  const cmd = withOutput(parent.command('diff <name>').description('what a reconcile would change on each cluster (server-side dry run on the hub; nothing is applied)'))
    .option('--tag <tag>', "diff this tag of the Project's repository instead of its own")
    .option('--digest <sha256:…>', "diff this digest of the Project's repository")
    .option('--dir <path>', 'diff a local Project directory (packed and uploaded, up to about 700 KiB packed)')
    .option('--cluster <name>', 'only this cluster')
    .option('--group <name>', 'only clusters of this group (with --cluster: that cluster, if it is in the group)')
    .option('--exit-code', `exit ${EXIT_CHANGES} when something would change (0 when nothing would)`)
    .action(async (name: string, opts: DiffFlags) => {
      const sources = (['tag', 'digest', 'dir'] as const).filter((k) => opts[k] !== undefined);
      if (sources.length > 1) throw new UsageError(`--${sources.join(' and --')} do not go together`, 'give at most one of --tag, --digest or --dir');
      if (opts.digest !== undefined && !/^sha256:[a-f0-9]{64}$/.test(opts.digest)) throw new UsageError(`--digest "${opts.digest}" is not sha256: and 64 lowercase hex digits`);
      const format = cli.format(opts);
      const body: Record<string, string> = {};
      if (opts.tag) body.tag = opts.tag;
      if (opts.digest) body.digest = opts.digest;
      if (opts.dir !== undefined) body.artifact = await packDir(opts.dir);
      const hub = cli.hub(DIFF_TIMEOUT_MS);
      const res = await withProgress(cli.io, `diffing project ${name}`, () =>
        hub.request<FleetDiff>('POST', `/projects/${seg(name)}/diff`, {
          body,
          query: { cluster: opts.cluster, group: opts.group },
          // the 404 may be about the project, the cluster or the group: the hub's message says which
          notFoundHint: opts.cluster || opts.group ? `run \`flotilla project status ${name}\` to see its clusters` : 'run `flotilla project list` to see the Projects',
        }),
      );
      const diff = res.body;
      if (!printData(cli.io, format, diff)) printFleetDiff(cli.io, diff, format === 'wide');
      const failed = diff.clusters.filter((c) => c.state === 'failed' || c.errors.length);
      if (failed.length) {
        throw new CliError(`the diff failed on ${failed.map((c) => c.cluster).join(', ')}`, 'the messages above say why; `flotilla cluster check NAME` tests a connection', EXIT_FAILURE);
      }
      if (opts.exitCode && diff.clusters.some(hasChanges)) throw new ExitStatus(EXIT_CHANGES);
    });
  examples(cmd, [
    'flotilla project diff shop                       # the tag the Project follows, on every cluster',
    'flotilla project diff shop --tag v2 --group staging',
    'flotilla project diff shop --dir ./shop --cluster prod-eu',
    'flotilla project diff shop -o json | jq \'.clusters[] | {cluster, counts}\'',
  ]);
}

/** The directory as the layer `artifact push` would push, base64 for the JSON body. */
async function packDir(dir: string): Promise<string> {
  if (!existsSync(dir)) throw new CliError(`${dir} does not exist`, 'give the Project directory (the one with project.cue)');
  let data: Buffer;
  try {
    data = (await buildArtifactImage(dir, defaultArtifactImageOptions())).layers[0].data;
  } catch (err) {
    throw new CliError(`packing ${dir} failed: ${messageOf(err)}`, 'check the directory and its timoni.ignore');
  }
  const encoded = data.toString('base64');
  if (encoded.length > MAX_UPLOAD_BASE64) {
    throw new CliError(`${dir} packs to ${Math.round(data.length / 1024)} KiB, more than the hub takes in an upload (about 700 KiB)`, 'push it with `flotilla artifact push` and diff that with --tag');
  }
  return encoded;
}
