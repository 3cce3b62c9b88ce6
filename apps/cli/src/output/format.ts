// Output formats: aligned tables by default (and -o wide for more columns),
// -o json and -o yaml for scripts, which get the API's objects unchanged.
import { stringify } from 'yaml';
import { UsageError } from '../errors';
import { colourEnabled, type Io } from '../io';

export type OutputFormat = 'table' | 'wide' | 'json' | 'yaml';
export const OUTPUT_FORMATS = ['json', 'yaml', 'wide'] as const;

export function outputFormat(value: string | undefined): OutputFormat {
  if (value === undefined || value === '') return 'table';
  if ((OUTPUT_FORMATS as readonly string[]).includes(value)) return value as OutputFormat;
  throw new UsageError(`unknown output format "${value}"`, `use one of: ${OUTPUT_FORMATS.join(', ')}`);
}

/** Prints `data` as JSON or YAML; returns false for table formats, which the command draws itself. */
export function printData(io: Io, format: OutputFormat, data: unknown): boolean {
  if (format === 'json') io.out.write(`${JSON.stringify(data, null, 2)}\n`);
  else if (format === 'yaml') io.out.write(stringify(data));
  else return false;
  return true;
}

// eslint-disable-next-line no-control-regex -- colour codes are what this strips
const ANSI = /\x1b\[[0-9;]*m/g;

/** Columns padded to their widest cell (ignoring colour codes), three spaces apart, as kubectl does. */
export function table(headers: string[], rows: string[][]): string {
  const all = [headers, ...rows];
  const widths = headers.map((_, i) => Math.max(...all.map((r) => visible(r[i] ?? '').length)));
  return all.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell + ' '.repeat(widths[i] - visible(cell).length))).join('   ').trimEnd()).join('\n') + '\n';
}

function visible(s: string): string {
  return s.replace(ANSI, '');
}

export function printTable(io: Io, headers: string[], rows: string[][], empty: string): void {
  io.out.write(rows.length ? table(headers, rows) : `${empty}\n`);
}

export type Paint = (s: string) => string;

export function painter(io: Io): { green: Paint; red: Paint; yellow: Paint; dim: Paint; bold: Paint } {
  const on = colourEnabled(io);
  const wrap = (code: number, reset: number) => (s: string) => (on ? `\x1b[${code}m${s}\x1b[${reset}m` : s);
  return { green: wrap(32, 39), red: wrap(31, 39), yellow: wrap(33, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}

/** Phases and results in colour: green for good, red for bad, yellow while in between. */
export function phaseColour(io: Io, phase: string): string {
  const p = painter(io);
  if (['Ready', 'Succeeded', 'True', 'Normal'].includes(phase)) return p.green(phase);
  if (['Failed', 'Stalled', 'False', 'Warning', 'Abandoned'].includes(phase)) return p.red(phase);
  return p.yellow(phase);
}

export function truncate(s: string, max: number): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
