import { RUN_REPORT_VERSION, type RunReport } from '@flotilla/engine';
import { AGENT_PROTOCOL_LIMITS } from '@flotilla/agent-protocol';
import { isJsonObject as isObject, parseAgentObject } from './agent-json';

/** A report from an agent that is not a RunReport this hub can store. */
export class BadAgentReport extends Error {
  constructor(message: string) {
    super(`bad run report from the agent: ${message}`);
    this.name = 'BadAgentReport';
  }
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/**
 * Parses an agent's RunReport JSON at the edge: bounded in size, and the
 * fields the hub writes into its tables have the types it expects. What the
 * engine put inside components and errors is stored as it came.
 */
export function parseAgentReport(json: string): RunReport {
  const r = parseAgentObject(json, AGENT_PROTOCOL_LIMITS.maxReportJsonBytes, (why) => new BadAgentReport(why));
  if (r.version !== RUN_REPORT_VERSION) throw new BadAgentReport(`version ${JSON.stringify(r.version)}, this hub reads version ${RUN_REPORT_VERSION}`);
  if (r.kind !== 'reconcile' && r.kind !== 'delete') throw new BadAgentReport('kind must be reconcile or delete');
  if (typeof r.ok !== 'boolean') throw new BadAgentReport('ok must be a boolean');
  if (!isObject(r.project) || typeof r.project.name !== 'string' || typeof r.project.namespace !== 'string') throw new BadAgentReport('project must name the Project');
  if (r.revision !== undefined && (typeof r.revision !== 'string' || !/^[^@\s]+@sha256:[a-f0-9]{64}$/.test(r.revision))) throw new BadAgentReport('revision must be tag@sha256:<64 hex>');
  const d = r.decision;
  if (!isObject(d) || typeof d.action !== 'string' || !Number.isInteger(d.attempt) || !Number.isFinite(d.afterMs) || (d.afterMs as number) < 0 || (d.attempt as number) < 0) throw new BadAgentReport('decision must hold action, attempt and afterMs');
  if (!Array.isArray(r.conditions) || !r.conditions.every((c) => isObject(c) && typeof c.type === 'string' && typeof c.status === 'string' && typeof c.reason === 'string' && typeof c.message === 'string')) {
    throw new BadAgentReport('conditions must be a list of conditions');
  }
  if (!Array.isArray(r.components) || !r.components.every((c) => isObject(c) && Array.isArray(c.instances))) throw new BadAgentReport('components must be a list with instances');
  if (!Array.isArray(r.removed) || !Array.isArray(r.errors) || !r.errors.every((e) => isObject(e) && typeof e.message === 'string')) throw new BadAgentReport('removed and errors must be lists');
  if (!isStringArray(r.namespaces) || !isStringArray(r.warnings)) throw new BadAgentReport('namespaces and warnings must be lists of strings');
  if (typeof r.startedAt !== 'string' || typeof r.finishedAt !== 'string' || !Number.isFinite(r.durationMs)) throw new BadAgentReport('startedAt, finishedAt and durationMs are required');
  return r as unknown as RunReport;
}
