// Rollout windows: when a new revision may start reaching clusters. A window
// opens at each time its cron schedule names (in its time zone) and stays
// open for its duration. With allow windows, a revision starts only inside
// one; inside a deny window it never starts. Drift correction of the
// revision a cluster has goes on at any time.
//
// cron-parser (MIT, maintained, time zones through luxon) reads the
// schedules: cron's day-of-month/day-of-week rules and DST gaps are easy to
// get wrong by hand, and the expressions come from users.
import { CronExpressionParser } from 'cron-parser';
import { parseDuration } from '../common/duration';

export const WINDOW_KINDS = ['allow', 'deny'] as const;

export interface WindowSpec {
  kind: (typeof WINDOW_KINDS)[number];
  /** five-field cron: minute hour day-of-month month day-of-week */
  schedule: string;
  /** how long each opening lasts, e.g. 8h */
  duration: string;
  /** IANA time zone of the schedule (default UTC) */
  timeZone?: string;
}

export type WindowCheck = { open: true } | { open: false; reason: string };

/** The last opening of `w` at or before `now`, or undefined when its schedule never fired before. */
function lastStart(w: WindowSpec, now: Date): Date | undefined {
  // prev() is strictly before currentDate: ask from just after now so an opening at now counts
  const expr = CronExpressionParser.parse(w.schedule, { currentDate: new Date(now.getTime() + 1), tz: w.timeZone ?? 'UTC', strict: false });
  try {
    return expr.prev().toDate();
  } catch {
    return undefined;
  }
}

function active(w: WindowSpec, now: Date): boolean {
  const start = lastStart(w, now);
  const seconds = parseDuration(w.duration) ?? 0;
  return start !== undefined && now.getTime() < start.getTime() + seconds * 1000;
}

function describe(w: WindowSpec): string {
  return `${w.kind} "${w.schedule}" for ${w.duration}${w.timeZone ? ` (${w.timeZone})` : ' (UTC)'}`;
}

/** Whether a new revision may start reaching clusters at `now`, and if not, which window says so. */
export function windowCheck(windows: readonly WindowSpec[] | null | undefined, now: Date): WindowCheck {
  const list = windows ?? [];
  const deny = list.find((w) => w.kind === 'deny' && active(w, now));
  if (deny) return { open: false, reason: `inside the deny window ${describe(deny)}` };
  const allows = list.filter((w) => w.kind === 'allow');
  if (allows.length > 0 && !allows.some((w) => active(w, now))) return { open: false, reason: `outside every allow window (${allows.map(describe).join('; ')})` };
  return { open: true };
}

/** What is wrong with a window's schedule or time zone, for a 400; undefined when nothing. */
export function windowProblem(w: { schedule?: unknown; timeZone?: unknown }): string | undefined {
  if (typeof w.timeZone === 'string') {
    try {
      new Intl.DateTimeFormat('en', { timeZone: w.timeZone });
    } catch {
      return `timeZone: "${w.timeZone}" is not an IANA time zone such as Europe/Berlin`;
    }
  }
  if (typeof w.schedule !== 'string') return undefined;
  if (w.schedule.trim().split(/\s+/).length !== 5) return 'schedule: must be a cron expression of five fields: minute hour day-of-month month day-of-week';
  try {
    CronExpressionParser.parse(w.schedule, { tz: typeof w.timeZone === 'string' ? w.timeZone : 'UTC', strict: false }).prev();
  } catch (err) {
    return `schedule: ${err instanceof Error ? err.message : String(err)}`;
  }
  return undefined;
}
