#!/usr/bin/env node
// The `flotilla` bin: loads the bundled CLI (cli.js beside this file) with a
// V8 code cache kept under the user's cache directory, so a command does not
// compile two megabytes of JavaScript before it starts. Node 20 has no
// module.enableCompileCache; vm.Script's cachedData works on every version.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
// The file itself, not @flotilla/cue: the launcher stays a few kilobytes.
import { prespawnNativeHelper } from '../../../libs/cue/src/native-prespawn';
import { CLI_CUE_GC_PERCENT } from './local/cue-helper';

// Commands that evaluate CUE start the helper now; it gets ready while the
// bundle below compiles and initialises.
if (evaluatesCue(process.argv.slice(2))) prespawnNativeHelper({ gcPercent: CLI_CUE_GC_PERCENT });

const bundle = join(__dirname, 'cli.js');
const source = readFileSync(bundle, 'utf8');
const cacheFile = codeCachePath(bundle);
let cachedData: Buffer | undefined;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  // first run of this build: compiled from source, cached at exit
}
const script = new Script(Module.wrap(source), { filename: bundle, cachedData });
if (!cachedData || script.cachedDataRejected) process.once('exit', () => saveCodeCache(script, cacheFile));
const cli = new Module(bundle, module);
cli.filename = bundle;
(script.runInThisContext() as (...args: unknown[]) => void).call(cli.exports, cli.exports, Module.createRequire(bundle), cli, bundle, dirname(bundle));

/**
 * One cache file per build of the bundle (its size, time and inode) and Node
 * version: a cache made for other source must never be loaded.
 */
function codeCachePath(file: string): string {
  const { size, mtimeMs, ino } = statSync(file);
  const base = process.env.XDG_CACHE_HOME || join(process.env.HOME || homedir(), '.cache');
  return join(base, 'flotilla', 'cli', `${process.version}-${size}-${Math.trunc(mtimeMs)}-${ino}.v8`);
}

/** Written beside and renamed, so two commands at once never leave half a file; a read-only home just goes without. */
function saveCodeCache(compiled: Script, file: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}`;
    writeFileSync(tmp, compiled.createCachedData());
    renameSync(tmp, file);
  } catch {
    // no cache: the next command compiles again
  }
}

/** `project build` and `project vet`, after any global options: the local commands that run CUE. */
function evaluatesCue(args: string[]): boolean {
  const words = args.filter((a) => !a.startsWith('-'));
  return words[0] === 'project' && (words[1] === 'build' || words[1] === 'vet');
}
