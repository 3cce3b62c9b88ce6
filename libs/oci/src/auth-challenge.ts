// `WWW-Authenticate` parsing (RFC 7235 challenges as registries send them).

export interface AuthChallenge {
  scheme: 'basic' | 'bearer' | string;
  params: Record<string, string>;
}

/** Parses the first challenge of a header value; params keys are lowercased. */
export function parseChallenge(header: string): AuthChallenge | undefined {
  const match = /^\s*([A-Za-z][A-Za-z0-9._~+/-]*)\s*(.*)$/s.exec(header);
  if (!match) return undefined;
  const params: Record<string, string> = {};
  const re = /([A-Za-z0-9._~+/-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))\s*,?\s*/gy;
  const rest = match[2] ?? '';
  let m: RegExpExecArray | null;
  while ((m = re.exec(rest)) !== null && m[0] !== '') {
    params[(m[1] ?? '').toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '');
  }
  return { scheme: (match[1] ?? '').toLowerCase(), params };
}

/** The repository scope a request needs, e.g. `repository:team/app:pull,push`. */
export function repositoryScope(repository: string, actions: readonly ('pull' | 'push')[]): string {
  return `repository:${repository}:${actions.join(',')}`;
}
