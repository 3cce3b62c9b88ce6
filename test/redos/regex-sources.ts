// Every regular expression written in the project's source, found with the TypeScript compiler's parser.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

/** A regular expression in the source: its pattern when it could be worked out, else why not. */
export interface FoundRegex {
  /** path relative to the root the search started from */
  file: string;
  line: number;
  /** the text of the literal or of the `RegExp(...)` call */
  expression: string;
  source?: string;
  flags?: string;
  /** set when the pattern is built from something other than constants of the file or its relative imports */
  unresolved?: string;
}

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs'];
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', '.git']);

/** Source files under `dir`, skipping dependencies and build output. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) out.push(...sourceFiles(path));
    } else if (SOURCE_EXTENSIONS.some((ext) => entry.name.endsWith(ext)) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out.sort();
}

interface RegexValue {
  kind: 'regex';
  source: string;
  flags: string;
}
type Value = string | number | RegexValue | Value[];

class Unresolved extends Error {
  constructor(readonly node: ts.Node) {
    super(`not a constant: ${node.getText()}`);
  }
}

const MAX_DEPTH = 40;

/**
 * Works out constant expressions the way regexes in this code are built:
 * literals, templates, `+`, `[...].join()`, `.source`, `.flags`, `.slice()`,
 * and `const` names of the same file or of a relatively imported one.
 */
class ConstantFolder {
  private readonly files = new Map<string, ts.SourceFile>();

  sourceFile(path: string): ts.SourceFile {
    let sf = this.files.get(path);
    if (!sf) {
      const kind = path.endsWith('x') ? ts.ScriptKind.TSX : path.endsWith('.ts') || path.endsWith('.mts') || path.endsWith('.cts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
      sf = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true, kind);
      this.files.set(path, sf);
    }
    return sf;
  }

  value(node: ts.Expression, depth = 0): Value {
    if (depth > MAX_DEPTH) throw new Unresolved(node);
    const next = (e: ts.Expression) => this.value(e, depth + 1);
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
    if (ts.isNumericLiteral(node)) return Number(node.text);
    if (ts.isRegularExpressionLiteral(node)) return regexOfLiteral(node.text);
    if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isNonNullExpression(node)) return next(node.expression);
    if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken) {
      const n = next(node.operand);
      if (typeof n === 'number') return -n;
    }
    if (ts.isTemplateExpression(node)) {
      let out = node.head.text;
      for (const span of node.templateSpans) out += scalar(next(span.expression), span.expression) + span.literal.text;
      return out;
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      return scalar(next(node.left), node.left) + scalar(next(node.right), node.right);
    }
    if (ts.isArrayLiteralExpression(node)) return node.elements.map((e) => (ts.isSpreadElement(e) ? throwUnresolved(e) : next(e)));
    if (ts.isIdentifier(node)) return this.constant(node, depth);
    if (ts.isPropertyAccessExpression(node)) {
      const target = next(node.expression);
      if (isRegex(target) && node.name.text === 'source') return target.source;
      if (isRegex(target) && node.name.text === 'flags') return target.flags;
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const target = next(node.expression.expression);
      const args = node.arguments.map(next);
      const method = node.expression.name.text;
      if (Array.isArray(target) && method === 'join') return target.map((v) => scalar(v, node)).join(args.length ? String(args[0]) : ',');
      if (typeof target === 'string' && method === 'slice' && args.every((a) => typeof a === 'number')) return target.slice(...(args as number[]));
    }
    const regex = regexConstruction(node);
    if (regex) return this.regexOf(regex, depth);
    throw new Unresolved(node);
  }

  /** The pattern of a `RegExp(pattern, flags?)` construction. */
  regexOf(call: ts.NewExpression | ts.CallExpression, depth = 0): RegexValue {
    const [pattern, flags] = call.arguments ?? [];
    if (!pattern) return { kind: 'regex', source: '(?:)', flags: '' };
    const p = this.value(pattern, depth + 1);
    const f = flags ? this.value(flags, depth + 1) : undefined;
    if (f !== undefined && typeof f !== 'string') throw new Unresolved(flags);
    if (isRegex(p)) return { kind: 'regex', source: p.source, flags: f ?? p.flags };
    if (typeof p !== 'string') throw new Unresolved(pattern);
    return { kind: 'regex', source: p, flags: f ?? '' };
  }

  /** The initializer of the one `const` of this name in the identifier's file, or of the relative import it names. */
  private constant(id: ts.Identifier, depth: number): Value {
    const sf = id.getSourceFile();
    const declared = constDeclarations(sf).get(id.text);
    if (declared && declared.length === 1) return this.value(declared[0], depth + 1);
    if (declared) throw new Unresolved(id);
    const imported = this.importedName(sf, id.text);
    if (!imported) throw new Unresolved(id);
    const there = constDeclarations(imported.file).get(imported.name);
    if (!there || there.length !== 1) throw new Unresolved(id);
    return this.value(there[0], depth + 1);
  }

  private importedName(sf: ts.SourceFile, local: string): { file: ts.SourceFile; name: string } | undefined {
    for (const stmt of sf.statements) {
      if (!ts.isImportDeclaration(stmt) || !ts.isStringLiteral(stmt.moduleSpecifier) || !stmt.moduleSpecifier.text.startsWith('.')) continue;
      const bindings = stmt.importClause?.namedBindings;
      if (!bindings || !ts.isNamedImports(bindings)) continue;
      const spec = bindings.elements.find((e) => e.name.text === local);
      if (!spec) continue;
      const base = join(dirname(sf.fileName), stmt.moduleSpecifier.text);
      const path = [base, ...SOURCE_EXTENSIONS.map((ext) => base + ext), join(base, 'index.ts')].find((p) => existsSync(p) && statSync(p).isFile());
      if (!path) return undefined;
      return { file: this.sourceFile(path), name: (spec.propertyName ?? spec.name).text };
    }
    return undefined;
  }
}

function throwUnresolved(node: ts.Node): never {
  throw new Unresolved(node);
}

function isRegex(v: Value): v is RegexValue {
  return typeof v === 'object' && !Array.isArray(v) && v.kind === 'regex';
}

function scalar(v: Value, node: ts.Node): string {
  if (typeof v === 'string' || typeof v === 'number') return String(v);
  throw new Unresolved(node);
}

/** `/source/flags` split at its last slash (a slash inside the source is escaped or in a class, never last). */
function regexOfLiteral(text: string): RegexValue {
  const end = text.lastIndexOf('/');
  return { kind: 'regex', source: text.slice(1, end), flags: text.slice(end + 1) };
}

/** `new RegExp(...)` or `RegExp(...)`, else undefined. */
function regexConstruction(node: ts.Node): ts.NewExpression | ts.CallExpression | undefined {
  if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && ts.isIdentifier(node.expression) && node.expression.text === 'RegExp') return node;
  return undefined;
}

const constCache = new WeakMap<ts.SourceFile, Map<string, ts.Expression[]>>();

/** Every `const name = value` of a file, any scope; a name declared twice is ambiguous and resolves to nothing. */
function constDeclarations(sf: ts.SourceFile): Map<string, ts.Expression[]> {
  let found = constCache.get(sf);
  if (found) return found;
  const map = new Map<string, ts.Expression[]>();
  const visit = (node: ts.Node) => {
    if (ts.isVariableDeclarationList(node) && (node.flags & ts.NodeFlags.Const) !== 0) {
      for (const d of node.declarations) {
        if (ts.isIdentifier(d.name) && d.initializer) map.set(d.name.text, [...(map.get(d.name.text) ?? []), d.initializer]);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  found = map;
  constCache.set(sf, found);
  return found;
}

/** Every regex literal and `RegExp(...)` construction in the files, with its pattern where constant. */
export function findRegexes(root: string, files: string[]): FoundRegex[] {
  const folder = new ConstantFolder();
  const out: FoundRegex[] = [];
  for (const path of files) {
    const sf = folder.sourceFile(path);
    const file = relative(root, path);
    const visit = (node: ts.Node) => {
      const where = () => ({ file, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, expression: node.getText(sf) });
      if (ts.isRegularExpressionLiteral(node)) {
        const { source, flags } = regexOfLiteral(node.text);
        out.push({ ...where(), source, flags });
      }
      const call = regexConstruction(node);
      if (call) {
        try {
          const { source, flags } = folder.regexOf(call);
          out.push({ ...where(), source, flags });
        } catch (err) {
          if (!(err instanceof Unresolved)) throw err;
          out.push({ ...where(), unresolved: err.message });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}
