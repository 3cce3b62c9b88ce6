// Everything besides the Targets that a rollout decision takes from its
// Project: approvals, a hold, a rollback, and whether a window is open now.
import type { ProjectEntity } from '../database/entities';
import type { DecideOptions } from './rollout';
import { decideOptions } from './rollout-actions';
import { windowCheck } from './rollout-windows';

export function rolloutOptions(project: Partial<Pick<ProjectEntity, 'rolloutActions' | 'rolloutWindows'>>, revision: string, now: Date): DecideOptions {
  const window = windowCheck(project.rolloutWindows, now);
  return { ...decideOptions(project.rolloutActions, revision), ...(window.open ? {} : { closed: window.reason }) };
}
