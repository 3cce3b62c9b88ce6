// Checks on request input before it is turned into DTOs: nesting no deeper
// than any route needs (a 100,000-deep array would overflow the validator's
// recursion), no NUL characters (PostgreSQL text refuses them), and no keys
// that name object internals (they would otherwise vanish silently).
// Iterative, so hostile input cannot overflow the check itself.

/** Deeper than any DTO (a label selector expression is 5 levels). */
export const MAX_INPUT_DEPTH = 32;
const INTERNAL_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export function rawInputProblems(value: unknown, root: string): string[] {
  const problems: string[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: root, depth: 0 }];
  while (stack.length > 0 && problems.length < 20) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) problems.push(`${path}: must not contain NUL characters`);
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_INPUT_DEPTH) {
      problems.push(`${path}: nested deeper than ${MAX_INPUT_DEPTH} levels`);
      continue;
    }
    if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push({ value: item, path: `${path}[${i}]`, depth: depth + 1 }));
      continue;
    }
    for (const key of Object.keys(v)) {
      const at = path === root ? key : `${path}.${key}`;
      if (INTERNAL_KEYS.has(key)) problems.push(`${at}: unknown field`);
      else if (key.includes('\u0000')) problems.push(`${path}: a key must not contain NUL characters`);
      else stack.push({ value: (v as Record<string, unknown>)[key], path: at, depth: depth + 1 });
    }
  }
  return problems;
}
