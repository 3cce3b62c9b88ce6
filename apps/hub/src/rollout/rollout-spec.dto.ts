import { DURATION } from '../common/duration';
// The `rollout` of a Project's spec as the API takes it: the older
// `groups` (one wave per group) or `waves` with their gates, and what a
// wave past its failure budget does.
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsBoolean, IsIn, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { DNS_LABEL, DNS_LABEL_MESSAGE, Optional } from '../common/validators';
import { ROLLOUT_ON_FAILURE, type RolloutOnFailure } from './on-failure';
import { WINDOW_KINDS, windowProblem, type WindowSpec } from './rollout-windows';
import { type AmountSpec, DEFAULT_PROGRESS_DEADLINE, parseAmount, type WaveSpec } from './wave-spec';

export const MAX_WAVES = 16;
const MAX_GROUPS = 64;
const DURATION_MESSAGE = 'must be a duration such as 30s, 10m or 1h30m';
export const PERCENT = /^(100|[1-9]?[0-9])%$/;
const MAX_COUNT = 1_000_000;

export const MAX_WINDOWS = 8;

export class RolloutWindowDto {
  @ApiProperty({ enum: WINDOW_KINDS, description: 'allow: a new revision starts only inside an allow window (when there is one); deny: never inside' })
  @IsIn(WINDOW_KINDS, { message: 'must be allow or deny' })
  kind!: WindowSpec['kind'];

  @ApiProperty({ description: 'when the window opens: a five-field cron expression (minute hour day-of-month month day-of-week)', maxLength: 128, format: 'cron', example: '0 9 * * 1-5' })
  @IsString({ message: 'must be a cron expression' })
  @MaxLength(128, { message: 'must be at most 128 characters' })
  schedule!: string;

  @ApiProperty({ description: 'how long it stays open each time', maxLength: 32, pattern: DURATION.source, example: '8h' })
  @IsString({ message: DURATION_MESSAGE })
  @MaxLength(32, { message: 'must be at most 32 characters' })
  @Matches(DURATION, { message: DURATION_MESSAGE })
  duration!: string;

  @ApiPropertyOptional({ description: 'IANA time zone of the schedule', default: 'UTC', maxLength: 64, format: 'time-zone', example: 'Europe/Berlin' })
  @Optional()
  @IsString({ message: 'must be an IANA time zone such as Europe/Berlin' })
  @MaxLength(64, { message: 'must be at most 64 characters' })
  timeZone?: string;
}

export class RolloutWaveDto {
  @ApiPropertyOptional({ description: 'the one cluster group of this wave (or give groups)', maxLength: 63, pattern: DNS_LABEL.source })
  @Optional()
  @IsString({ message: 'must be a group name' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  group?: string;

  @ApiPropertyOptional({ type: [String], description: 'the cluster groups of this wave (or give group)', minItems: 1, maxItems: MAX_GROUPS, uniqueItems: true })
  @Optional()
  @IsArray({ message: 'must be a list of group names' })
  @ArrayMinSize(1, { message: 'must name at least one group' })
  @ArrayUnique({ message: 'must not repeat a group' })
  @ArrayMaxSize(MAX_GROUPS, { message: `must have at most ${MAX_GROUPS} groups` })
  @Matches(DNS_LABEL, { each: true, message: `each ${DNS_LABEL_MESSAGE}` })
  groups?: string[];

  @ApiPropertyOptional({ description: 'how long the wave stays Ready and Healthy on the revision before the next wave opens', default: '0s', maxLength: 32, pattern: DURATION.source })
  @Optional()
  @IsString({ message: DURATION_MESSAGE })
  @MaxLength(32, { message: 'must be at most 32 characters' })
  @Matches(DURATION, { message: DURATION_MESSAGE })
  soak?: string;

  @ApiPropertyOptional({ description: 'at most this many of the wave\'s clusters move at once: a count, or a percentage of the wave such as "25%" (at least one)', oneOf: [{ type: 'integer', minimum: 1, maximum: MAX_COUNT }, { type: 'string', pattern: PERCENT.source }] })
  // a count or a percentage: checked by rolloutProblems, which names the field
  @Allow()
  maxConcurrent?: AmountSpec;

  @ApiPropertyOptional({ description: 'failed clusters the wave tolerates before the rollout halts: a count, or a percentage of the wave (rounded down)', default: 0, oneOf: [{ type: 'integer', minimum: 0, maximum: MAX_COUNT }, { type: 'string', pattern: PERCENT.source }] })
  @Allow()
  maxFailures?: AmountSpec;

  @ApiPropertyOptional({ description: 'the wave opens only once an operator approved it for the revision', default: false })
  @Optional()
  @IsBoolean({ message: 'must be true or false' })
  approval?: boolean;

  @ApiPropertyOptional({ description: 'a cluster on the revision that is not Healthy within this long counts as failed', default: DEFAULT_PROGRESS_DEADLINE, maxLength: 32, pattern: DURATION.source })
  @Optional()
  @IsString({ message: DURATION_MESSAGE })
  @MaxLength(32, { message: 'must be at most 32 characters' })
  @Matches(DURATION, { message: DURATION_MESSAGE })
  progressDeadline?: string;

  @ApiPropertyOptional({ type: [RolloutWindowDto], description: 'when this wave\'s clusters may start a new revision, besides the Project\'s windows; a closed one holds this wave and those after it, not the waves before', maxItems: MAX_WINDOWS })
  @Optional()
  @IsArray({ message: 'must be a list of windows' })
  @ArrayMaxSize(MAX_WINDOWS, { message: `must have at most ${MAX_WINDOWS} windows` })
  @ValidateNested({ each: true })
  @Type(() => RolloutWindowDto)
  windows?: RolloutWindowDto[];
}

export class RolloutDto {
  @ApiPropertyOptional({ type: [String], description: 'cluster groups in the order they are rolled out to, one wave each (or give waves)', maxItems: MAX_GROUPS, uniqueItems: true })
  @Optional()
  @IsArray({ message: 'must be a list of group names' })
  @ArrayUnique({ message: 'must not repeat a group' })
  @ArrayMaxSize(MAX_GROUPS, { message: `must have at most ${MAX_GROUPS} groups` })
  @Matches(DNS_LABEL, { each: true, message: `each ${DNS_LABEL_MESSAGE}` })
  groups?: string[];

  @ApiPropertyOptional({ type: [RolloutWaveDto], description: 'the waves in order, each with its gates (or give groups); groups no wave names form one last wave', minItems: 1, maxItems: MAX_WAVES })
  @Optional()
  @IsArray({ message: 'must be a list of waves' })
  @ArrayMinSize(1, { message: 'must have at least one wave' })
  @ArrayMaxSize(MAX_WAVES, { message: `must have at most ${MAX_WAVES} waves` })
  @ValidateNested({ each: true })
  @Type(() => RolloutWaveDto)
  waves?: RolloutWaveDto[];

  @ApiPropertyOptional({ type: [RolloutWindowDto], description: 'when a new revision may start reaching clusters; drift correction goes on at any time', maxItems: MAX_WINDOWS })
  @Optional()
  @IsArray({ message: 'must be a list of windows' })
  @ArrayMaxSize(MAX_WINDOWS, { message: `must have at most ${MAX_WINDOWS} windows` })
  @ValidateNested({ each: true })
  @Type(() => RolloutWindowDto)
  windows?: RolloutWindowDto[];

  @ApiPropertyOptional({ enum: ROLLOUT_ON_FAILURE, default: 'halt', description: 'when a wave goes past its failure budget: halt the rollout, or also roll the wave\'s clusters back to the last revision that was Ready and Healthy on each' })
  @Optional()
  @IsIn(ROLLOUT_ON_FAILURE, { message: 'must be halt or rollback' })
  onFailure?: RolloutOnFailure;
}

function amountProblem(path: string, value: unknown, min: number): string | undefined {
  if (value === undefined) return undefined;
  const ok = typeof value === 'number' ? Number.isInteger(value) && value >= min && value <= MAX_COUNT : typeof value === 'string' && PERCENT.test(value) && parseAmount(value) !== undefined;
  return ok ? undefined : `${path}: must be a whole number from ${min} to ${MAX_COUNT}, or a percentage such as "25%"`;
}

function windowsProblems(windows: unknown[] | undefined, path: string): string[] {
  return (windows ?? []).flatMap((w, i) => {
    const problem = w instanceof RolloutWindowDto ? windowProblem(w) : undefined;
    return problem ? [`${path}[${i}].${problem}`] : [];
  });
}

function storedWindows(windows: RolloutWindowDto[] | undefined): WindowSpec[] {
  return (windows ?? []).map((w) => ({ kind: w.kind, schedule: w.schedule, duration: w.duration, ...(w.timeZone !== undefined ? { timeZone: w.timeZone } : {}) }));
}

/** The checks that span fields of `rollout` (the pipe calls them through specProblems). */
export function rolloutProblems(rollout: unknown, path = 'rollout'): string[] {
  if (!(rollout instanceof RolloutDto)) return [];
  const problems: string[] = [];
  if ((rollout.groups === undefined) === (rollout.waves === undefined)) return [`${path}: give either groups or waves`];
  problems.push(...windowsProblems(rollout.windows, `${path}.windows`));
  const seen = new Map<string, number>();
  for (const [i, w] of (rollout.waves ?? []).entries()) {
    if (!(w instanceof RolloutWaveDto)) continue;
    const at = `${path}.waves[${i}]`;
    if ((w.group === undefined) === (w.groups === undefined)) {
      problems.push(`${at}: give either group or groups`);
      continue;
    }
    for (const g of w.groups ?? [w.group!]) {
      if (typeof g !== 'string') continue;
      const before = seen.get(g);
      if (before !== undefined && before !== i) problems.push(`${at}: group ${g} is already in wave ${before}`);
      else seen.set(g, i);
    }
    problems.push(...windowsProblems(w.windows, `${at}.windows`));
    const concurrent = amountProblem(`${at}.maxConcurrent`, w.maxConcurrent, 1);
    if (concurrent) problems.push(concurrent);
    const failures = amountProblem(`${at}.maxFailures`, w.maxFailures, 0);
    if (failures) problems.push(failures);
  }
  return problems;
}

/** The spec's rollout as the Project stores it: flattened groups, waves (empty for the `groups` form) and onFailure. */
export function storedRollout(rollout: RolloutDto | null | undefined): { rolloutGroups: string[]; rolloutWaves: WaveSpec[]; rolloutOnFailure: RolloutOnFailure; rolloutWindows: WindowSpec[] } {
  if (!rollout) return { rolloutGroups: [], rolloutWaves: [], rolloutOnFailure: 'halt', rolloutWindows: [] };
  const windows = storedWindows(rollout.windows);
  const waves: WaveSpec[] = (rollout.waves ?? []).map((w) => ({
    groups: w.groups ?? [w.group!],
    ...(w.soak !== undefined ? { soak: w.soak } : {}),
    ...(w.maxConcurrent !== undefined ? { maxConcurrent: w.maxConcurrent } : {}),
    ...(w.maxFailures !== undefined ? { maxFailures: w.maxFailures } : {}),
    ...(w.approval !== undefined ? { approval: w.approval } : {}),
    ...(w.progressDeadline !== undefined ? { progressDeadline: w.progressDeadline } : {}),
    ...(w.windows !== undefined && w.windows.length > 0 ? { windows: storedWindows(w.windows) } : {}),
  }));
  return { rolloutGroups: rollout.groups ?? waves.flatMap((w) => w.groups), rolloutWaves: waves, rolloutOnFailure: rollout.onFailure ?? 'halt', rolloutWindows: windows };
}

export class RolloutWindowViewDto {
  @ApiProperty({ enum: WINDOW_KINDS }) kind!: string;
  @ApiProperty() schedule!: string;
  @ApiProperty() duration!: string;
  @ApiPropertyOptional() timeZone?: string;
}

export class RolloutWaveViewDto {
  @ApiProperty({ type: [String] }) groups!: string[];
  @ApiPropertyOptional() soak?: string;
  @ApiPropertyOptional({ oneOf: [{ type: 'integer' }, { type: 'string' }] }) maxConcurrent?: AmountSpec;
  @ApiPropertyOptional({ oneOf: [{ type: 'integer' }, { type: 'string' }] }) maxFailures?: AmountSpec;
  @ApiPropertyOptional() approval?: boolean;
  @ApiPropertyOptional() progressDeadline?: string;
  @ApiPropertyOptional({ type: [RolloutWindowViewDto] }) windows?: RolloutWindowViewDto[];
}

export class RolloutViewDto {
  @ApiProperty({ type: [String], description: 'every group the waves name, in wave order' }) groups!: string[];
  @ApiPropertyOptional({ type: [RolloutWaveViewDto], description: 'the waves, when the spec gave waves (else each group is a wave)' }) waves?: RolloutWaveViewDto[];
  @ApiProperty({ enum: ROLLOUT_ON_FAILURE }) onFailure!: RolloutOnFailure;
  @ApiPropertyOptional({ type: [RolloutWindowViewDto] }) windows?: RolloutWindowViewDto[];
}

/** The spec's rollout as the API shows it: groups always (as before waves), waves when given. */
export function rolloutView(p: { rolloutGroups: string[]; rolloutWaves?: WaveSpec[] | null; rolloutOnFailure?: RolloutOnFailure | null; rolloutWindows?: WindowSpec[] | null }): RolloutViewDto {
  return {
    groups: p.rolloutGroups,
    ...(p.rolloutWaves && p.rolloutWaves.length > 0 ? { waves: p.rolloutWaves } : {}),
    ...(p.rolloutWindows && p.rolloutWindows.length > 0 ? { windows: p.rolloutWindows } : {}),
    onFailure: p.rolloutOnFailure ?? 'halt',
  };
}
