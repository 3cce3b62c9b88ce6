// `flotilla project vet DIR`: loads project.cue, every bundle and runtime and
// builds every instance, locally; every problem with file:line; exit 1 on any.
import type { Command } from 'commander';
import { examples, type Cli } from '../../cli';
import { CliError } from '../../errors';
import { issueLine, vetDirectory, type VetFlags } from '../../local/project-vet';
import { painter } from '../../output/format';
import { duration } from '../../output/time';
import { localProjectOptions } from './local-options';
import { withProgress } from '../../output/progress';

export function registerProjectVet(parent: Command, cli: Cli): void {
  const cmd = localProjectOptions(parent.command('vet <dir>').description('check a local Project directory: build every instance of every component, no hub needed')).action(
    async (dir: string, opts: VetFlags) => {
      const started = Date.now();
      const report = await withProgress(cli.io, `building ${dir}`, () => vetDirectory(dir, opts, cli.io.env));
      const p = painter(cli.io);
      for (const issue of report.issues) cli.io.err.write(`${p.red('✗')} ${issueLine(dir, issue)}\n`);
      if (!report.ok) throw new CliError(`project in ${dir} has ${report.issues.length} problem${report.issues.length === 1 ? '' : 's'}`, 'fix the files named above and run `flotilla project vet` again');
      for (const [component, builds] of Object.entries(report.built)) {
        for (const b of builds) cli.io.out.write(`${p.green('✓')} ${component}/${b.instance} (${b.namespace}): ${b.steps.reduce((n, s) => n + s.objects.length, 0)} objects, module ${b.module.repository}@${b.moduleVersion}\n`);
      }
      cli.io.out.write(`project ${report.project?.name ?? ''} is valid (${Object.keys(report.built).length} components, checked in ${duration(Date.now() - started)})\n`);
    },
  );
  examples(cmd, ['flotilla project vet ./shop', 'flotilla project vet ./shop --cluster-name prod-eu --cluster-group production --runtime ENV=prod']);
}
