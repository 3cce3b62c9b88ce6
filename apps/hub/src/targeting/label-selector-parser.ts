// The label selector query syntax (kubectl's `-l`), read in one left-to-right pass.
import type { LabelSelector, LabelSelectorRequirement } from '../database/entities';

/**
 * The grammar, as the API documents it. The only blank is the space, as the
 * API has always accepted (a query string rarely carries tabs or line breaks,
 * and one rule is easier to state than Kubernetes' four); spaces may stand
 * between any two tokens, and a key and `in`/`notin` need one between them.
 */
export const LABEL_SELECTOR_GRAMMAR =
  'requirements joined by ",": `key=value`, `key==value`, `key!=value`, `key in (v1,v2)`, `key notin (v1,v2)`, `key` (exists) or `!key` (does not exist). ' +
  'A key starts with a letter or digit and continues with letters, digits, "-", "_", "." or "/"; a value is letters, digits, "-", "_" or "." and may be empty. ' +
  'Spaces (and no other blanks) may stand between tokens; a key and in/notin need one between them. Example: `env=prod,region in (eu,us),!legacy`';

/** Why a label selector does not parse; `position` is the 1-based character where reading stopped. */
export class SelectorSyntaxError extends Error {
  constructor(
    readonly detail: string,
    readonly position: number,
  ) {
    super(`label selector: ${detail}`);
    this.name = 'SelectorSyntaxError';
  }
}

function isBlank(c: string): boolean {
  return c === ' ';
}

function isAlphanumeric(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

function isValueChar(c: string): boolean {
  return isAlphanumeric(c) || c === '-' || c === '_' || c === '.';
}

function isKeyChar(c: string): boolean {
  return isValueChar(c) || c === '/';
}

/** A cursor over the text; every method moves forward only, so a parse is linear in the length. */
class Reader {
  private pos = 0;

  constructor(private readonly text: string) {}

  get atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  /** 1-based, as the messages count. */
  get position(): number {
    return this.pos + 1;
  }

  peek(): string {
    return this.text.charAt(this.pos);
  }

  skipBlanks(): boolean {
    const start = this.pos;
    while (!this.atEnd && isBlank(this.peek())) this.pos++;
    return this.pos > start;
  }

  take(c: string): boolean {
    if (this.atEnd || this.peek() !== c) return false;
    this.pos++;
    return true;
  }

  /** The longest run of characters satisfying `ok` (possibly empty). */
  run(ok: (c: string) => boolean): string {
    const start = this.pos;
    while (!this.atEnd && ok(this.peek())) this.pos++;
    return this.text.slice(start, this.pos);
  }

  fail(expected: string, at = this.position, found = this.atEnd ? 'the end' : JSON.stringify(this.peek())): never {
    throw new SelectorSyntaxError(`at character ${at}: expected ${expected}, found ${found}`, at);
  }

  key(): string {
    if (!isAlphanumeric(this.peek())) this.fail('a label key (starting with a letter or digit)');
    return this.run(isKeyChar);
  }

  /** A value, which must end where a blank, "," or `end` follows. */
  value(end: string): string {
    const v = this.run(isValueChar);
    this.skipBlanks();
    if (!this.atEnd && this.peek() !== ',' && this.peek() !== end) this.fail(`a value of letters, digits, "-", "_" or "." followed by ","${end ? ` or "${end}"` : ' or the end'}`);
    return v;
  }
}

type Operator = '=' | '!=' | 'in' | 'notin';

/** The operator after a key, or undefined when the key stands alone (exists). */
function operator(r: Reader, key: string, blankBefore: boolean): Operator | undefined {
  if (r.take('=')) {
    r.take('=');
    return '=';
  }
  if (r.take('!')) {
    if (!r.take('=')) r.fail('"=" after "!"');
    return '!=';
  }
  if (r.atEnd || r.peek() === ',') return undefined;
  const at = r.position;
  const word = blankBefore ? r.run(isKeyChar) : '';
  if (word === 'in' || word === 'notin') return word;
  const expected = `=, ==, !=, in, notin or "," after key "${key}"`;
  return word === '' ? r.fail(expected) : r.fail(expected, at, JSON.stringify(word));
}

function valueList(r: Reader): string[] {
  r.skipBlanks();
  if (!r.take('(')) r.fail('"(" to open the list of values');
  const values: string[] = [];
  for (;;) {
    r.skipBlanks();
    values.push(r.value(')'));
    if (r.take(')')) return values;
    if (!r.take(',')) r.fail('"," or ")" in the list of values');
  }
}

/**
 * Parses the query-string form used by kubectl: `k=v`, `k==v`, `k!=v`, `k`,
 * `!k`, `k in (a,b)`, `k notin (a,b)`, joined by commas (see
 * LABEL_SELECTOR_GRAMMAR). Linear in the length of `text`; the only
 * definition of the syntax, used both to validate and to build the selector.
 */
export function parseLabelSelector(text: string): LabelSelector {
  const equal = new Map<string, string>();
  const matchExpressions: LabelSelectorRequirement[] = [];
  const r = new Reader(text);
  for (;;) {
    r.skipBlanks();
    if (r.take('!')) {
      r.skipBlanks();
      matchExpressions.push({ key: r.key(), operator: 'DoesNotExist' });
    } else {
      const key = r.key();
      const blank = r.skipBlanks();
      const op = operator(r, key, blank);
      if (op === undefined) matchExpressions.push({ key, operator: 'Exists' });
      else if (op === 'in' || op === 'notin') matchExpressions.push({ key, operator: op === 'in' ? 'In' : 'NotIn', values: valueList(r) });
      else {
        r.skipBlanks();
        const value = r.value('');
        if (op === '!=') matchExpressions.push({ key, operator: 'NotIn', values: [value] });
        // a second `k=v` for one key must hold as well, as in Kubernetes, not replace the first
        else if (equal.has(key)) matchExpressions.push({ key, operator: 'In', values: [value] });
        else equal.set(key, value);
      }
    }
    r.skipBlanks();
    if (r.atEnd) break;
    if (!r.take(',')) r.fail('"," between requirements or the end');
  }
  return { matchLabels: Object.fromEntries(equal), matchExpressions };
}

/** Why `text` is not a label selector, or undefined when it is one. */
export function labelSelectorProblem(text: string): string | undefined {
  try {
    parseLabelSelector(text);
    return undefined;
  } catch (err) {
    if (!(err instanceof SelectorSyntaxError)) throw err;
    return err.detail;
  }
}
