// Small readers over unstructured objects for the health functions.
import type { KubeObject } from '../types';

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export function field(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** An integer field, or `fallback` when absent or not a number. */
export function intField(obj: unknown, path: string, fallback: number): number {
  const v = field(obj, path);
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

export function stringField(obj: unknown, path: string): string | undefined {
  const v = field(obj, path);
  return typeof v === 'string' ? v : undefined;
}

export function conditions(obj: KubeObject): Condition[] {
  const list = field(obj, 'status.conditions');
  if (!Array.isArray(list)) return [];
  return list.filter((c): c is Condition => !!c && typeof c === 'object' && typeof (c as Condition).type === 'string');
}

export function condition(obj: KubeObject, type: string): Condition | undefined {
  return conditions(obj).find((c) => c.type === type);
}
