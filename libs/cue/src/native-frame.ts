// The native helper's request frame: "id op jsonLength [blobLength]\n", the
// JSON, then the files' raw bytes. A megabyte of CUE source as JSON strings
// costs escaping in Node and unescaping in Go on every call; as bytes it
// costs a copy. The wasm runtime keeps plain JSON.
import type { GoFile } from './files';

export interface RequestFrame {
  header: string;
  json: Buffer;
  blob: Buffer[];
}

export function encodeRequestFrame(id: number, op: string, payload: unknown): RequestFrame {
  const files = (payload as { files?: unknown } | null)?.files;
  const blob: Buffer[] = [];
  let body = payload;
  if (Array.isArray(files)) {
    let offset = 0;
    const refs = (files as GoFile[]).map((f) => {
      if (f.text === undefined && f.bytes === undefined) return f;
      const bytes = f.bytes ? Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength) : Buffer.from(f.text!, 'utf8');
      blob.push(bytes);
      const ref = { path: f.path, blob: [offset, bytes.length] };
      offset += bytes.length;
      return ref;
    });
    body = { ...(payload as object), files: refs };
  }
  const json = Buffer.from(JSON.stringify(body), 'utf8');
  const blobLength = blob.reduce((n, b) => n + b.length, 0);
  const header = blob.length > 0 ? `${id} ${op} ${json.length} ${blobLength}\n` : `${id} ${op} ${json.length}\n`;
  return { header, json, blob };
}
