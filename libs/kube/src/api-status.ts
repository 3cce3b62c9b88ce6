// What of an error answer may reach users: the fields of a Kubernetes `Status`, each
// bounded and stripped of control characters. Any other body (an HTML page, a metadata
// service's answer, a database's banner) is described, never echoed: a hub pointed at
// an arbitrary server must not become a way to read that server.
import { boundedText } from '@flotilla/egress';
import type { ApiStatus } from './errors';

/** Longest Status message kept: an admission policy's or webhook's refusal with its reason fits. */
export const MAX_STATUS_MESSAGE = 1024;
/** Longest reason kept (`Forbidden`, `AlreadyExists`, …). */
const MAX_STATUS_REASON = 64;
/** Causes kept of a Status (field validation errors). */
const MAX_STATUS_CAUSES = 10;

function field(value: unknown, max: number): string | undefined {
  return typeof value === 'string' && value !== '' ? boundedText(value, max) : undefined;
}

/**
 * The Status an error answer carries, bounded; for a body that is not a Kubernetes
 * `Status` (kind `Status` and apiVersion `v1`), only a note that it was something else.
 */
export function apiStatusOf(body: unknown): ApiStatus {
  const b = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  if (!b || b.kind !== 'Status') return { message: 'the answer is not a Kubernetes Status (body not shown)' };
  const status: ApiStatus = { kind: 'Status' };
  const s = field(b.status, 32);
  if (s) status.status = s;
  const reason = field(b.reason, MAX_STATUS_REASON);
  if (reason) status.reason = reason;
  const message = field(b.message, MAX_STATUS_MESSAGE);
  if (message) status.message = message;
  if (typeof b.code === 'number' && Number.isInteger(b.code)) status.code = b.code;
  const d = b.details && typeof b.details === 'object' ? (b.details as Record<string, unknown>) : undefined;
  if (d) {
    const details: NonNullable<ApiStatus['details']> = {};
    for (const k of ['name', 'group', 'kind'] as const) {
      const v = field(d[k], MAX_STATUS_MESSAGE);
      if (v) details[k] = v;
    }
    if (Array.isArray(d.causes)) {
      details.causes = d.causes.slice(0, MAX_STATUS_CAUSES).map((c: unknown) => {
        const o = c && typeof c === 'object' ? (c as Record<string, unknown>) : {};
        return { reason: field(o.reason, MAX_STATUS_REASON), message: field(o.message, MAX_STATUS_MESSAGE), field: field(o.field, MAX_STATUS_MESSAGE) };
      });
    }
    status.details = details;
  }
  return status;
}
