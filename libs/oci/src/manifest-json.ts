// Manifest bytes as go-containerregistry (and so Timoni) writes them: its
// field order, map keys sorted, Go's HTML-safe string escaping. The digest of
// an artifact is the sha256 of these bytes, so the layout is part of the format.
import type { Descriptor, ImageManifest } from './types';

export function encodeManifest(m: ImageManifest): Buffer {
  const parts = [`"schemaVersion":${m.schemaVersion}`];
  if (m.mediaType) parts.push(`"mediaType":${str(m.mediaType)}`);
  parts.push(`"config":${descriptor(m.config)}`);
  parts.push(`"layers":[${m.layers.map(descriptor).join(',')}]`);
  if (m.annotations && Object.keys(m.annotations).length > 0) parts.push(`"annotations":${map(m.annotations)}`);
  if (m.artifactType) parts.push(`"artifactType":${str(m.artifactType)}`);
  return Buffer.from(`{${parts.join(',')}}`);
}

function descriptor(d: Descriptor): string {
  const parts = [`"mediaType":${str(d.mediaType)}`, `"size":${d.size}`, `"digest":${str(d.digest)}`];
  if (d.annotations && Object.keys(d.annotations).length > 0) parts.push(`"annotations":${map(d.annotations)}`);
  if (d.artifactType) parts.push(`"artifactType":${str(d.artifactType)}`);
  return `{${parts.join(',')}}`;
}

function map(m: Record<string, string>): string {
  const keys = Object.keys(m).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return `{${keys.map((k) => `${str(k)}:${str(m[k]!)}`).join(',')}}`;
}

/** Go's encoding/json escapes <, >, & and the JS line separators as \u00XX. */
function str(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
