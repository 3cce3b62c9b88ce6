import type { FileTree } from './types';

/** A file as the Go side takes it: UTF-8 text, or base64 for other bytes. */
export interface GoFile {
  path: string;
  text?: string;
  base64?: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function toGoFile(path: string, content: string | Uint8Array): GoFile {
  if (typeof content === 'string') return { path, text: content };
  try {
    return { path, text: utf8.decode(content) };
  } catch {
    return { path, base64: Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('base64') };
  }
}

export function toGoFiles(tree: FileTree): GoFile[] {
  return Object.entries(tree).map(([path, content]) => toGoFile(path, content));
}
