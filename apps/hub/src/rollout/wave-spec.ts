// A Project's rollout waves: as written in its spec (`rollout.waves`, or the
// older `rollout.groups`, one group a wave) and as the decisions use them.
import { parseDuration } from '../common/duration';
import type { WindowSpec } from './rollout-windows';

/** A count of Targets, or a percentage of a wave's Targets written `NN%`. */
export type AmountSpec = number | string;

/** One wave as the spec stores it (groups normalized from `group`/`groups`). */
export interface WaveSpec {
  groups: string[];
  /** how long the wave stays Ready and Healthy before the next opens, e.g. `10m` */
  soak?: string;
  /** at most this many of the wave's Targets move at once */
  maxConcurrent?: AmountSpec;
  /** failures the wave tolerates before the rollout halts (default 0) */
  maxFailures?: AmountSpec;
  /** the wave opens only once someone approved it for the revision */
  approval?: boolean;
  /** a Target on the revision that is not Healthy within this long counts as failed (default 10m) */
  progressDeadline?: string;
  /** when this wave's clusters may start a new revision, besides the Project's windows */
  windows?: WindowSpec[];
}

export type Amount = { count: number } | { percent: number };

/** One wave, ready for the decisions. */
export interface Wave {
  groups: string[];
  soakMs: number;
  maxConcurrent: Amount | null;
  maxFailures: Amount;
  approval: boolean;
  progressDeadlineMs: number;
  windows: WindowSpec[];
}

export const DEFAULT_PROGRESS_DEADLINE = '10m';

/** `NN%` (0–100) or a whole count; undefined when neither. */
export function parseAmount(value: AmountSpec): Amount | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? { count: value } : undefined;
  if (!value.endsWith('%')) return undefined;
  const digits = value.slice(0, -1);
  if (digits.length === 0 || digits.length > 3 || ![...digits].every((c) => c >= '0' && c <= '9')) return undefined;
  const percent = Number(digits);
  return percent <= 100 ? { percent } : undefined;
}

/** The amount as a number of Targets out of `total` (a percentage rounds down). */
export function amountOf(amount: Amount, total: number): number {
  return 'count' in amount ? amount.count : Math.floor((total * amount.percent) / 100);
}

function waveOfSpec(spec: WaveSpec): Wave {
  return {
    groups: spec.groups,
    soakMs: (parseDuration(spec.soak ?? '0s') ?? 0) * 1000,
    maxConcurrent: spec.maxConcurrent === undefined ? null : (parseAmount(spec.maxConcurrent) ?? null),
    maxFailures: (spec.maxFailures === undefined ? undefined : parseAmount(spec.maxFailures)) ?? { count: 0 },
    approval: spec.approval === true,
    progressDeadlineMs: (parseDuration(spec.progressDeadline ?? DEFAULT_PROGRESS_DEADLINE) ?? 600) * 1000,
    windows: spec.windows ?? [],
  };
}

/**
 * The waves of a Project: its `rollout.waves`, else one wave per group of
 * `rollout.groups`; groups listed nowhere form one last wave with the defaults.
 * No waves at all: an empty list (every Target moves at once).
 */
export function wavesOf(project: { rolloutGroups: readonly string[]; rolloutWaves?: readonly WaveSpec[] | null }): Wave[] {
  const specs = project.rolloutWaves && project.rolloutWaves.length > 0 ? project.rolloutWaves : project.rolloutGroups.map((g) => ({ groups: [g] }));
  if (specs.length === 0) return [];
  return [...specs.map(waveOfSpec), waveOfSpec({ groups: [] })];
}

/** Index of the wave a cluster group belongs to: the last (unlisted) wave when no wave lists it. */
export function waveIndex(waves: readonly Wave[], group: string): number {
  const i = waves.findIndex((w) => w.groups.includes(group));
  return i < 0 ? waves.length - 1 : i;
}

/** Every group the waves list, in wave order (`rollout.groups` of the spec's older form). */
export function groupsOf(specs: readonly WaveSpec[]): string[] {
  return specs.flatMap((w) => w.groups);
}
