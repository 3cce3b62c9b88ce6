// USTAR headers written byte for byte as Go's archive/tar writes them for
// Timoni (zero times, uid/gid 0, empty user/group names), with a PAX record
// only for paths that do not fit USTAR's name/prefix split.
import { PackError } from './errors';

export const BLOCK = 512;

export type TarType = 'file' | 'directory' | 'symlink' | 'hardlink' | 'char-device' | 'block-device' | 'fifo';

const TYPEFLAG: Record<TarType, string> = {
  file: '0',
  hardlink: '1',
  symlink: '2',
  'char-device': '3',
  'block-device': '4',
  directory: '5',
  fifo: '6',
};

export interface TarHeaderInput {
  name: string;
  type: TarType;
  mode: number;
  size?: number;
  linkname?: string;
}

/** One entry's header block(s): a PAX extended header first when the name needs it. */
export function encodeHeader(input: TarHeaderInput): Buffer {
  const size = input.type === 'file' ? (input.size ?? 0) : 0;
  const split = splitUstarName(input.name);
  if (Buffer.byteLength(input.linkname ?? '') > 100) throw new PackError(input.name, 'link target longer than 100 bytes');
  if (split) return ustarBlock(split.name, split.prefix, input, size);
  const record = paxRecord('path', input.name);
  const pax = ustarBlock(`PaxHeaders.0/${input.name.split('/').pop()!.slice(0, 80)}`, '', { name: '', type: 'file', mode: 0 }, record.length, 'x');
  return Buffer.concat([pax, padBlock(record), ustarBlock(input.name.slice(0, 100), '', input, size)]);
}

/** Zero padding that completes a data section to whole blocks. */
export function padding(size: number): Buffer {
  const rest = size % BLOCK;
  return Buffer.alloc(rest === 0 ? 0 : BLOCK - rest);
}

/** The end-of-archive marker Go writes: two zero blocks. */
export function endOfArchive(): Buffer {
  return Buffer.alloc(BLOCK * 2);
}

function ustarBlock(name: string, prefix: string, input: TarHeaderInput, size: number, typeflag?: string): Buffer {
  const b = Buffer.alloc(BLOCK);
  b.write(name, 0, 100, 'utf8');
  octal(b, 100, 8, input.mode & 0o7777);
  octal(b, 108, 8, 0);
  octal(b, 116, 8, 0);
  octal(b, 124, 12, size);
  octal(b, 136, 12, 0);
  b.write(typeflag ?? TYPEFLAG[input.type], 156, 1, 'latin1');
  b.write(input.linkname ?? '', 157, 100, 'utf8');
  b.write('ustar\u000000', 257, 8, 'latin1');
  octal(b, 329, 8, 0);
  octal(b, 337, 8, 0);
  b.write(prefix, 345, 155, 'utf8');
  b.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of b) sum += byte;
  b.fill(0, 148, 156);
  b.write(sum.toString(8).padStart(6, '0'), 148, 6, 'latin1');
  b[155] = 0x20;
  return b;
}

function octal(b: Buffer, offset: number, length: number, value: number): void {
  b.write(value.toString(8).padStart(length - 1, '0'), offset, length - 1, 'latin1');
}

function splitUstarName(name: string): { name: string; prefix: string } | undefined {
  const len = Buffer.byteLength(name);
  if (len <= 100) return { name, prefix: '' };
  if (len > 256) return undefined;
  for (let i = name.indexOf('/'); i >= 0; i = name.indexOf('/', i + 1)) {
    const prefix = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(rest) <= 100 && rest !== '') return { name: rest, prefix };
  }
  return undefined;
}

function paxRecord(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length) length = String(length).length + Buffer.byteLength(body);
  return Buffer.from(`${length}${body}`);
}

function padBlock(data: Buffer): Buffer {
  return Buffer.concat([data, padding(data.length)]);
}
