// The value of a Project's sink header, read from the Secret its spec names
// at each delivery attempt (with the agent's own identity, as pull secrets
// are): never copied into the outbox, a log or the status, so rotating the
// Secret takes effect at the next attempt.
import type { KubeObject, ObjectClient } from '@flotilla/kube';
import type { SinkHeaderRef } from './cdevents-outbox-store';

/** A header value longer than this is refused (no sink needs more). */
const HEADER_VALUE_LIMIT = 8192;

export function sinkHeaderReader(client: ObjectClient): (namespace: string, ref: SinkHeaderRef) => Promise<string> {
  return async (namespace, ref) => {
    const where = `Secret ${namespace}/${ref.secretKeyRef.name}`;
    const secret = (await client.getOptional({ apiVersion: 'v1', kind: 'Secret', namespace, name: ref.secretKeyRef.name })) as (KubeObject & { data?: Record<string, string> }) | undefined;
    if (!secret) throw new Error(`sink header ${ref.name}: ${where} not found`);
    const encoded = secret.data?.[ref.secretKeyRef.key];
    if (encoded === undefined) throw new Error(`sink header ${ref.name}: ${where} has no key "${ref.secretKeyRef.key}"`);
    const value = Buffer.from(encoded, 'base64').toString('utf8').trim();
    // a header value is one line of visible text
    if (value.length === 0 || value.length > HEADER_VALUE_LIMIT || /[\0\r\n]/.test(value)) throw new Error(`sink header ${ref.name}: ${where} key "${ref.secretKeyRef.key}" is not a header value (empty, over ${HEADER_VALUE_LIMIT} characters or several lines)`);
    return value;
  };
}
