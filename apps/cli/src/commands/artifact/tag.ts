// `flotilla artifact tag oci://repo:tag --tag NEW`: points more tags at the same manifest.
import type { Command } from 'commander';
import { collect, examples, type Cli } from '../../cli';
import { CliError, UsageError, messageOf } from '../../errors';
import { registryClient, registryOptions, type RegistryFlags } from '../../local/registry';
import { ociReference } from './reference';

export function registerArtifactTag(parent: Command, cli: Cli): void {
  const cmd = registryOptions(
    parent.command('tag <url>').description('add tags to an artifact given by tag or digest').option('-t, --tag <tag>', 'tag to add (repeatable)', collect),
  ).action(async (url: string, opts: RegistryFlags & { tag?: string[] }) => {
    if (!opts.tag?.length) throw new UsageError('give at least one --tag');
    const ref = ociReference(url, { tag: 'required' });
    const client = registryClient(opts, cli.io.env);
    const repo = { registry: ref.registry, repository: ref.repository };
    try {
      const digest = ref.digest ?? (await client.resolve(ref)).digest;
      for (const t of opts.tag) {
        await client.tag(repo, digest, t);
        cli.io.out.write(`tagged oci://${ref.registry}/${ref.repository}:${t} -> ${digest}\n`);
      }
    } catch (err) {
      throw new CliError(`tagging ${url} failed: ${messageOf(err)}`, 'check that the artifact exists (`flotilla artifact list`) and your credentials');
    }
  });
  examples(cmd, ['flotilla artifact tag oci://ghcr.io/acme/shop:v1.2.0 --tag production', 'flotilla artifact tag oci://localhost:5000/shop@sha256:… -t stable']);
}
