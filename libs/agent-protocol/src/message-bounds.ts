// Which string of an agent's message is longer than the protocol allows.
// The hub checks every message it reads; sizes are counted in UTF-8 bytes,
// as the wire and the database count them.
import type { ConnectRequest, RegisterRequest, RunReport } from './generated/flotilla/agent/v1/agent';
import { AGENT_PROTOCOL_LIMITS } from './limits';

const MAX = AGENT_PROTOCOL_LIMITS.maxStringBytes;

/** One field over its bound: its path in the message (proto names), its size and the bound. */
export interface OversizedField {
  field: string;
  bytes: number;
  limit: number;
}

type Checks = Array<[field: string, value: string, limit: number]>;

function firstOver(checks: Checks): OversizedField | undefined {
  for (const [field, value, limit] of checks) {
    // a UTF-8 character takes at most 3 bytes per UTF-16 unit: most strings need no count
    if (value.length * 3 <= limit) continue;
    const bytes = Buffer.byteLength(value);
    if (bytes > limit) return { field, bytes, limit };
  }
  return undefined;
}

function reportChecks(prefix: string, r: RunReport): Checks {
  // report_json is bounded by the report parser (a report too large is acknowledged and dropped)
  return [
    [`${prefix}.target_id`, r.targetId, MAX.id],
    [`${prefix}.report_id`, r.reportId, MAX.id],
  ];
}

/** The first string of `m` over its bound (or a Hello carrying too many reports), if any. */
export function oversizedField(m: ConnectRequest): OversizedField | undefined {
  const body = m.body;
  switch (body?.$case) {
    case 'hello': {
      const h = body.value;
      const count = h.bufferedReports.length;
      if (count > AGENT_PROTOCOL_LIMITS.maxBufferedReports) return { field: 'hello.buffered_reports (count)', bytes: count, limit: AGENT_PROTOCOL_LIMITS.maxBufferedReports };
      return firstOver([
        ['hello.agent_version', h.agentVersion, MAX.version],
        ['hello.kube_version', h.kubeVersion, MAX.version],
        ...h.bufferedReports.flatMap((r, i) => reportChecks(`hello.buffered_reports[${i}]`, r)),
      ]);
    }
    case 'ack':
      return firstOver([['ack.target_id', body.value.targetId, MAX.id]]);
    case 'report':
      return firstOver(reportChecks('report', body.value));
    case 'event': {
      const e = body.value;
      return firstOver([
        ['event.target_id', e.targetId, MAX.id],
        ['event.type', e.type, MAX.word],
        ['event.reason', e.reason, MAX.word],
        ['event.message', e.message, MAX.text],
        ['event.revision', e.revision, MAX.revision],
        ['event.component', e.component, MAX.name],
        ['event.instance', e.instance, MAX.name],
        ['event.namespace', e.namespace, MAX.name],
      ]);
    }
    case 'diff':
      // diff_json is bounded by the diff parser
      return firstOver([
        ['diff.request_id', body.value.requestId, MAX.id],
        ['diff.error', body.value.error, MAX.text],
      ]);
    case 'renew':
      return firstOver([['renew.csr_pem', body.value.csrPem, MAX.csrPem]]);
    case 'upgradeResult':
      return firstOver([
        ['upgrade_result.image', body.value.image, MAX.image],
        ['upgrade_result.error', body.value.error, MAX.text],
      ]);
    default:
      return undefined;
  }
}

/** The first string of a registration over its bound, if any. */
export function oversizedRegisterField(r: RegisterRequest): OversizedField | undefined {
  return firstOver([
    ['bootstrap_token', r.bootstrapToken, MAX.id],
    ['agent_version', r.agentVersion, MAX.version],
    ['csr_pem', r.csrPem, MAX.csrPem],
  ]);
}

/** `text` cut to at most `limit` UTF-8 bytes, whole characters only, marked when cut: for free texts an agent sends. */
export function fitText(text: string, limit: number = MAX.text): string {
  if (text.length * 3 <= limit || Buffer.byteLength(text) <= limit) return text;
  const mark = ' …(cut)';
  const room = limit - Buffer.byteLength(mark);
  let bytes = 0;
  let end = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (bytes + n > room) break;
    bytes += n;
    end += ch.length;
  }
  return text.slice(0, end) + mark;
}

/** How an oversized field reads in the error the agent gets. */
export function describeOversized(o: OversizedField): string {
  return o.field.endsWith('(count)')
    ? `${o.field} is ${o.bytes}, at most ${o.limit} are accepted`
    : `${o.field} is ${o.bytes} bytes, at most ${o.limit} are accepted`;
}
