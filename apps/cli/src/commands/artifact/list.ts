// `flotilla artifact list oci://repo`: the tags with the digest each points at.
import type { Command } from 'commander';
import { examples, withOutput, type Cli } from '../../cli';
import { CliError, messageOf } from '../../errors';
import { registryClient, registryOptions, type RegistryFlags } from '../../local/registry';
import { printData, printTable } from '../../output/format';
import { ociReference } from './reference';

export function registerArtifactList(parent: Command, cli: Cli): void {
  const cmd = registryOptions(withOutput(parent.command('list <url>').alias('ls').description('list the tags of a repository and their digests'))).action(
    async (url: string, opts: RegistryFlags & { output?: string }) => {
      const ref = ociReference(url, { tag: 'forbidden' });
      const client = registryClient(opts, cli.io.env);
      const repo = { registry: ref.registry, repository: ref.repository };
      let rows: Array<{ tag: string; digest: string }>;
      try {
        const tags = (await client.listTags(repo)).sort();
        rows = [];
        for (const tag of tags) rows.push({ tag, digest: (await client.resolve({ ...repo, tag })).digest });
      } catch (err) {
        throw new CliError(`listing ${url} failed: ${messageOf(err)}`, 'check the URL and your registry credentials (--creds, or docker login)');
      }
      if (printData(cli.io, cli.format(opts), rows)) return;
      printTable(cli.io, ['TAG', 'DIGEST'], rows.map((r) => [r.tag, r.digest]), `no tags in ${url}`);
    },
  );
  examples(cmd, ['flotilla artifact list oci://ghcr.io/acme/shop', 'flotilla artifact list oci://localhost:5000/shop -o json']);
}
