// A kubeconfig as the hub takes it: one file, so paths it names (CA, client
// certificate and key, token file) are read here and inlined as data.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse, stringify } from 'yaml';
import { CliError, messageOf } from '../../errors';

interface Named<T> {
  name: string;
  [key: string]: unknown;
  cluster?: T;
  user?: T;
}

export function readKubeconfig(path: string, context?: string): { kubeconfig: string; context: string; server?: string } {
  if (!existsSync(path)) throw new CliError(`kubeconfig ${path} does not exist`, 'give the path of a kubeconfig file with --kubeconfig');
  let doc: { contexts?: Named<{ cluster: string; user: string }>[]; clusters?: Named<Record<string, unknown>>[]; users?: Named<Record<string, unknown>>[]; 'current-context'?: string };
  try {
    doc = parse(readFileSync(path, 'utf8')) ?? {};
  } catch (err) {
    throw new CliError(`kubeconfig ${path} is not YAML: ${messageOf(err)}`);
  }
  const name = context ?? doc['current-context'];
  const ctx = (doc.contexts ?? []).find((c) => c.name === name);
  if (!name || !ctx?.context) {
    const names = (doc.contexts ?? []).map((c) => c.name).join(', ') || 'none';
    throw new CliError(`kubeconfig ${path} has no context ${name ? `"${name}"` : '(and no current-context)'}`, `pick one with --kube-context (contexts: ${names})`);
  }
  const inline = (entry: Record<string, unknown> | undefined, fileKey: string, dataKey: string, encode: boolean) => {
    const file = entry?.[fileKey];
    if (typeof file !== 'string') return;
    const full = isAbsolute(file) ? file : join(dirname(path), file);
    let bytes: Buffer;
    try {
      bytes = readFileSync(full);
    } catch (err) {
      throw new CliError(`kubeconfig ${path}: cannot read ${fileKey} ${full}: ${messageOf(err)}`);
    }
    entry![dataKey] = encode ? bytes.toString('base64') : bytes.toString('utf8').trim();
    delete entry![fileKey];
  };
  for (const c of doc.clusters ?? []) inline(c.cluster, 'certificate-authority', 'certificate-authority-data', true);
  for (const u of doc.users ?? []) {
    inline(u.user, 'client-certificate', 'client-certificate-data', true);
    inline(u.user, 'client-key', 'client-key-data', true);
    inline(u.user, 'tokenFile', 'token', false);
  }
  const ctxBody = (ctx as unknown as { context: { cluster: string } }).context;
  const server = (doc.clusters ?? []).find((c) => c.name === ctxBody.cluster)?.cluster?.server;
  return { kubeconfig: stringify(doc), context: name, server: typeof server === 'string' ? server : undefined };
}
