// What every command gets: where to write, and the hub client for the
// selected context (resolved only when a command needs the hub, so local
// commands work without any context).
import { type Command, CommanderError } from 'commander';
import { resolveContext } from './config/context';
import { DEFAULT_TIMEOUT_MS, HubClient } from './hub/hub-client';
import type { Io } from './io';
import { outputFormat, type OutputFormat } from './output/format';
import { UsageError } from './errors';

export interface GlobalOptions {
  context?: string;
  requestTimeout?: string;
}

export class Cli {
  constructor(
    readonly io: Io,
    readonly root: Command,
  ) {}

  get globals(): GlobalOptions {
    return this.root.opts<GlobalOptions>();
  }

  /** `defaultTimeoutMs` for commands whose hub call is long by nature (a fleet diff); --request-timeout wins. */
  hub(defaultTimeoutMs = DEFAULT_TIMEOUT_MS): HubClient {
    return new HubClient(resolveContext(this.io.env, this.globals.context), this.timeoutMs(defaultTimeoutMs));
  }

  timeoutMs(defaultMs = DEFAULT_TIMEOUT_MS): number {
    const raw = this.globals.requestTimeout;
    if (raw === undefined) return defaultMs;
    const m = /^(\d+)(ms|s|m)?$/.exec(raw);
    if (!m || Number(m[1]) === 0) throw new UsageError(`--request-timeout "${raw}" is not a duration`, 'use e.g. 30s, 2m or 500ms');
    return Number(m[1]) * ({ ms: 1, s: 1000, m: 60_000 }[m[2] ?? 's'] ?? 1000);
  }

  format(opts: { output?: string }): OutputFormat {
    return outputFormat(opts.output);
  }
}

/** `-o` on a command that prints objects. */
export function withOutput(cmd: Command): Command {
  return cmd.option('-o, --output <format>', 'json, yaml or wide (default: a table)');
}

export function examples(cmd: Command, lines: string[]): Command {
  return cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
}

/** Repeatable `--flag k=v` into a map. */
export function keyValue(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const i = value.indexOf('=');
  if (i <= 0) throw new UsageError(`"${value}" is not KEY=VALUE`);
  return { ...previous, [value.slice(0, i)]: value.slice(i + 1) };
}

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Path segment for a name given on the command line. */
export function seg(name: string): string {
  return encodeURIComponent(name);
}

/** A command that only groups subcommands: alone, it shows its help and exits 2. */
export function group(parent: Command, name: string, description: string): Command {
  const cmd = parent.command(name).description(description);
  cmd.action(() => {
    cmd.outputHelp({ error: true });
    throw new CommanderError(2, 'flotilla.missingSubcommand', `"${cmd.name()}" needs a subcommand`);
  });
  return cmd;
}

