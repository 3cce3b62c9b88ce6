// Builds every instance of a local Project directory for one cluster, with
// libs/timoni as the hub does (same CUE engine, same module fetcher), so that
// `vet` and `build` say what the hub will say.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CueEngine, readFileTree, type FileTree } from '@flotilla/cue';
import { ComponentBuilder, formatIssue, ModuleBuilder, ModuleFetcher, vetProject, type TimoniIssue, type VetReport } from '@flotilla/timoni';
import { CliError, UsageError } from '../errors';
import { CLI_CUE_GC_PERCENT } from './cue-helper';
import { registryClient, type RegistryFlags } from './registry';

export interface VetFlags extends RegistryFlags {
  file: string;
  clusterName?: string;
  clusterGroup?: string;
  runtime?: Record<string, string>;
  kubeVersion?: string;
}

export async function vetDirectory(dir: string, flags: VetFlags, env: NodeJS.ProcessEnv): Promise<VetReport> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new CliError(`${dir} is not a directory`, 'give the directory that holds project.cue');
  if (!existsSync(join(dir, flags.file))) throw new CliError(`${join(dir, flags.file)} does not exist`, 'a Project directory holds project.cue (or name the file with --file)');
  if (flags.clusterGroup && !flags.clusterName) throw new UsageError('--cluster-group needs --cluster-name');
  const annotations = Object.fromEntries(Object.entries(flags.runtime ?? {}).map(([k, v]) => [`runtime.timoni.sh/${k}`, v]));
  // The tree is read while the CUE helper starts.
  const starting = CueEngine.start({ poolSize: 1, gcPercent: CLI_CUE_GC_PERCENT });
  let files: FileTree;
  try {
    files = readFileTree(dir);
  } catch (err) {
    await starting.then((cue) => cue.close(), () => undefined);
    throw err;
  }
  const cue = await starting;
  try {
    const components = new ComponentBuilder(cue, new ModuleFetcher(cue, registryClient(flags, env)), new ModuleBuilder(cue));
    const cluster = flags.clusterName ? { name: flags.clusterName, group: flags.clusterGroup ?? 'default' } : undefined;
    return await vetProject(cue, components, files, { cluster, annotations, kubeVersion: flags.kubeVersion }, { path: flags.file });
  } finally {
    // Not awaited: the report prints while the helper is reaped (it dies with this process anyway).
    void cue.close();
  }
}

/**
 * One problem as a line: files of the Project are shown under DIR so that
 * editors can jump to them; other files (a module's templates) are named as
 * the module has them, with `module` in front.
 */
export function issueLine(dir: string, issue: TimoniIssue): string {
  if (!issue.file) return formatIssue(issue);
  const inProject = existsSync(join(dir, issue.file));
  return formatIssue({ ...issue, file: inProject ? join(dir, issue.file) : `module ${issue.file}` });
}
