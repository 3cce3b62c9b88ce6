// `timoni.ignore` rules. Pattern syntax is gitignore's (matched by the `ignore`
// library); the decision follows fluxcd sourceignore (go-git) as Timoni uses it:
// every path is judged on its own, the last rule that matches the path or one
// of its parent directories wins, and no match means included.
import ignore, { type Ignore } from 'ignore';

/** Timoni's ReadIgnoreFile: lines starting with `#` and blank lines dropped. */
export function parseIgnoreFile(content: string): string[] {
  return content.split(/\r?\n/).filter((line) => !line.startsWith('#') && line.trim() !== '');
}

interface Rule {
  negated: boolean;
  matcher: Ignore;
}

export class IgnoreRules {
  private readonly rules: Rule[];

  constructor(readonly patterns: readonly string[]) {
    this.rules = [];
    for (const raw of patterns) {
      const negated = raw.startsWith('!');
      const pattern = negated ? raw.slice(1) : raw;
      if (pattern.trim() === '') continue;
      this.rules.push({ negated, matcher: ignore({ ignoreCase: false }).add(pattern) });
    }
  }

  get empty(): boolean {
    return this.rules.length === 0;
  }

  /** `relPath` uses `/` separators, relative to the packed root; the root itself is never ignored. */
  ignores(relPath: string, isDir: boolean): boolean {
    if (relPath === '' || relPath === '.') return false;
    const probe = isDir ? `${relPath}/` : relPath;
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const rule = this.rules[i]!;
      if (rule.matcher.ignores(probe)) return !rule.negated;
    }
    return false;
  }
}

/** The vendor layer of a module: only the `cue.mod/` tree (Timoni's `/*`, `!/cue.mod`). */
export const VENDOR_LAYER_PATTERNS: readonly string[] = ['/*', '!/cue.mod'];

/** The module layer: the module's own ignore rules plus `cue.mod/`. */
export function moduleLayerPatterns(userPatterns: readonly string[]): string[] {
  return [...userPatterns, 'cue.mod/'];
}
