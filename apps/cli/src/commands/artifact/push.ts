// `flotilla artifact push DIR oci://repo --tag T`: Timoni's artifact format
// (config application/vnd.timoni.config.v1+json, one tar+gzip layer), so
// `timoni artifact pull` and the hub read it.
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { pushArtifact, CONTENT_TYPE } from '@flotilla/oci';
import { collect, examples, keyValue, withOutput, type Cli } from '../../cli';
import { CliError, UsageError, messageOf } from '../../errors';
import { registryClient, registryOptions, type RegistryFlags } from '../../local/registry';
import { printData } from '../../output/format';
import { ociReference } from './reference';
import { withProgress } from '../../output/progress';

interface PushOptions extends RegistryFlags {
  tag?: string[];
  contentType: string;
  annotation?: Record<string, string>;
  output?: string;
}

export function registerArtifactPush(parent: Command, cli: Cli): void {
  const cmd = registryOptions(
    withOutput(parent.command('push <dir> <url>').description('pack a directory and push it as a Timoni artifact'))
      .option('-t, --tag <tag>', 'tag to push (repeatable; the first is pushed, the others point at its digest)', collect)
      .option('--content-type <type>', 'sh.timoni.content.type of the layer', CONTENT_TYPE.generic)
      .option('-a, --annotation <key=value>', 'manifest annotation, e.g. org.opencontainers.image.revision=abc123 (repeatable)', keyValue),
  ).action(async (dir: string, url: string, opts: PushOptions) => {
    if (!opts.tag?.length) throw new UsageError('give at least one --tag', 'e.g. --tag latest --tag v1.2.0');
    ociReference(url, { tag: 'forbidden' });
    if (!existsSync(dir)) throw new CliError(`${dir} does not exist`, 'give the directory (or file) to push');
    const result = await withProgress(cli.io, `pushing ${dir}`, () => pushArtifact(registryClient(opts, cli.io.env), url, dir, { tags: opts.tag!, contentType: opts.contentType, annotations: opts.annotation ?? {} })).catch((err: unknown) => {
      throw new CliError(`pushing ${dir} to ${url} failed: ${messageOf(err)}`, 'check the URL and your registry credentials (--creds, or docker login)');
    });
    const digestUrl = `${url}@${result.digest}`;
    if (printData(cli.io, cli.format(opts), { url, digest: result.digest, tags: result.tags })) return;
    cli.io.out.write(`pushed ${digestUrl}\n`);
    for (const t of result.tags) cli.io.out.write(`tagged ${url}:${t}\n`);
  });
  examples(cmd, ['flotilla artifact push ./shop oci://ghcr.io/acme/shop --tag latest --tag v1.2.0', 'flotilla artifact push ./shop oci://localhost:5000/shop -t dev -a org.opencontainers.image.revision=$(git rev-parse HEAD)']);
}
