import { AGENT_PROTOCOL_LIMITS } from '@flotilla/agent-protocol';
import type { ProjectDiff } from '@flotilla/engine';
import { isJsonObject as isObject, parseAgentObject } from './agent-json';

/** A diff from an agent that is not a ProjectDiff the API can show. */
export class BadAgentDiff extends Error {
  constructor(message: string) {
    super(`bad diff from the agent: ${message}`);
    this.name = 'BadAgentDiff';
  }
}

const ACTIONS = new Set(['created', 'changed', 'pruned']);

/** Parses an agent's ProjectDiff JSON at the edge: bounded, and every field the API returns typed as the API says. */
export function parseAgentDiff(json: string): ProjectDiff {
  const d = parseAgentObject(json, AGENT_PROTOCOL_LIMITS.maxDiffJsonBytes, (why) => new BadAgentDiff(why));
  if (typeof d.revision !== 'string') throw new BadAgentDiff('revision must be a string');
  if (!Number.isInteger(d.unchanged) || (d.unchanged as number) < 0) throw new BadAgentDiff('unchanged must be a count');
  const objectOk = (o: unknown) =>
    isObject(o) && typeof o.subject === 'string' && typeof o.instance === 'string' && typeof o.component === 'string' && typeof o.diff === 'string' && typeof o.action === 'string' && ACTIONS.has(o.action);
  if (!Array.isArray(d.objects) || !d.objects.every(objectOk)) throw new BadAgentDiff('objects must be a list of subject, instance, component, action (created, changed or pruned) and diff');
  if (!Array.isArray(d.errors) || !d.errors.every((e) => isObject(e) && typeof e.component === 'string' && typeof e.message === 'string')) throw new BadAgentDiff('errors must be a list of component and message');
  // only the fields the API shows travel on
  return {
    revision: d.revision,
    unchanged: d.unchanged as number,
    objects: (d.objects as Array<Record<string, string>>).map((o) => ({ subject: o.subject!, instance: o.instance!, component: o.component!, action: o.action as ProjectDiff['objects'][number]['action'], diff: o.diff! })),
    errors: (d.errors as Array<Record<string, string>>).map((e) => ({ component: e.component!, message: e.message! })),
  };
}
