// `flotilla project build DIR`: the objects every instance would apply, as
// YAML documents in apply order (like `timoni bundle build`).
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { examples, withOutput, type Cli } from '../../cli';
import { CliError, UsageError } from '../../errors';
import { issueLine, vetDirectory, type VetFlags } from '../../local/project-vet';
import { localProjectOptions } from './local-options';
import { withProgress } from '../../output/progress';

export function registerProjectBuild(parent: Command, cli: Cli): void {
  const cmd = localProjectOptions(withOutput(parent.command('build <dir>').description('print the objects a local Project directory builds to, as YAML (or -o json)'))).action(
    async (dir: string, opts: VetFlags & { output?: string }) => {
      if (opts.output && opts.output !== 'yaml' && opts.output !== 'json') throw new UsageError(`-o ${opts.output}: build prints yaml or json`);
      const report = await withProgress(cli.io, `building ${dir}`, () => vetDirectory(dir, opts, cli.io.env));
      if (!report.ok) {
        for (const issue of report.issues) cli.io.err.write(`${issueLine(dir, issue)}\n`);
        throw new CliError(`project in ${dir} does not build (${report.issues.length} problem${report.issues.length === 1 ? '' : 's'})`, 'run `flotilla project vet` for the details');
      }
      const objects = report.plan!.order.flatMap((component) => (report.built[component] ?? []).flatMap((b) => b.steps.flatMap((s) => s.objects)));
      if (opts.output === 'json') {
        cli.io.out.write(`${JSON.stringify(objects, null, 2)}\n`);
        return;
      }
      cli.io.out.write(objects.map((o) => `---\n${stringify(o)}`).join(''));
    },
  );
  examples(cmd, ['flotilla project build ./shop --cluster-name dev', 'flotilla project build ./shop -o json | jq -r ".[].kind"']);
}
