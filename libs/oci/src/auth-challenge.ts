// `WWW-Authenticate` parsing (RFC 7235 challenges as registries send them).

export interface AuthChallenge {
  scheme: 'basic' | 'bearer' | string;
  params: Record<string, string>;
}

/** Parses the first challenge of a header value; params keys are lowercased. */
export function parseChallenge(header: string): AuthChallenge | undefined {
  const match = /^\s*([A-Za-z][A-Za-z0-9._~+/-]*)\s*(.*)$/s.exec(header);
  if (!match) return undefined;
  return { scheme: (match[1] ?? '').toLowerCase(), params: parseAuthParams(match[2] ?? '') };
}

const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isTokenChar = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || '._~+/-'.includes(c);

/**
 * `realm="https://auth",service=registry` → params, read in one pass (a
 * registry is a server we do not trust: a regex over its header backtracked
 * polynomially). Reading stops at the first thing that is not `name=value`.
 */
function parseAuthParams(text: string): Record<string, string> {
  const params: Record<string, string> = {};
  let i = 0;
  const skipSpaces = () => {
    while (i < text.length && isSpace(text[i])) i++;
  };
  for (;;) {
    const start = i;
    while (i < text.length && isTokenChar(text[i])) i++;
    const name = text.slice(start, i);
    skipSpaces();
    if (name === '' || text[i] !== '=') return params;
    i++;
    skipSpaces();
    let value = '';
    if (text[i] === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        value += text[i];
      }
      if (i >= text.length) return params; // unterminated: not a value
      i++;
    } else {
      const from = i;
      while (i < text.length && text[i] !== ',' && !isSpace(text[i])) i++;
      value = text.slice(from, i);
    }
    params[name.toLowerCase()] = value;
    skipSpaces();
    if (text[i] === ',') i++;
    skipSpaces();
  }
}

/** The repository scope a request needs, e.g. `repository:team/app:pull,push`. */
export function repositoryScope(repository: string, actions: readonly ('pull' | 'push')[]): string {
  return `repository:${repository}:${actions.join(',')}`;
}
