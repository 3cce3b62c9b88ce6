/** Files CUE may see, by slash-separated path relative to the tree root. */
export type FileTree = Record<string, string | Uint8Array>;

/** One position in a file of the tree; line and column start at 1. */
export interface CuePosition {
  file: string;
  line: number;
  column: number;
}

/** One CUE error. file/line/column are its first position, absent when CUE gives none. */
export interface CueDiagnostic {
  message: string;
  /** CUE path of the value in error, e.g. `timoni.instance.x`. */
  path?: string;
  file?: string;
  line?: number;
  column?: number;
  positions?: CuePosition[];
  kind: 'cue' | 'input' | 'internal';
}

/** What to load from the tree and how. */
export interface LoadSpec {
  files: FileTree;
  /** Package directory relative to the root (default: root). Ignored with `entries`. */
  dir?: string;
  /** Package name to pick in `dir` when it holds several (e.g. Timoni's `-p`). */
  package?: string;
  /** Load exactly these files (tree paths) as one package; .json/.yaml/.yml are converted to CUE. */
  entries?: string[];
  /** `@tag(key)` injections: key → value. */
  tags?: Record<string, string>;
  /** Values for `@tag(x, var=NAME)`. When absent, var-tags stay unset. */
  tagVars?: Record<string, string>;
  /** Names that are true for `@if(...)` build attributes, e.g. `debug`. */
  buildTags?: string[];
}

/** Unify a value into the package at `path` (cue.Value.FillPath). Give `json` or `cue`. */
export interface FillSpec {
  path: string;
  /** A JSON value (serialized for you). */
  json?: unknown;
  /** A CUE expression as source text. */
  cue?: string;
}

/** Validate the value at `path`, optionally unified with the value at `schema` (e.g. `#Config`). */
export interface CheckSpec {
  path: string;
  schema?: string;
  /** Require every value to be concrete. */
  concrete?: boolean;
  /** Resolve defaults and close definitions before validating. */
  final?: boolean;
}

export interface ExportSpec {
  /** CUE path, e.g. `timoni.apply`; `""` is the whole package. */
  path: string;
  /** `json` (default, must be concrete) or `cue` (CUE syntax, may be incomplete). */
  format?: 'json' | 'cue';
  /** For structs: also return each regular field in CUE field order. */
  fields?: boolean;
  /** A missing path gives `exists: false` instead of an error. */
  optional?: boolean;
  /** Bytes as text and integral floats as integers, as after Timoni's YAML round trip. */
  yamlCompat?: boolean;
}

export interface EvaluateRequest extends LoadSpec {
  /** Applied in order before checks and exports. */
  fills?: FillSpec[];
  /** All checks run; their errors are reported together. */
  checks?: CheckSpec[];
  exports?: ExportSpec[];
}

export interface ExportedField {
  label: string;
  /** JSON text (format json) of the field's value. */
  json?: string;
  /** CUE text (format cue) of the field's value. */
  cue?: string;
}

export interface ExportedValue {
  path: string;
  exists: boolean;
  /** CUE kind, e.g. `struct`, `list`, `string`. */
  kind?: string;
  /** JSON text in CUE field order (parse it yourself to keep order-sensitive keys). */
  json?: string;
  cue?: string;
  /** Regular fields in CUE field order, when `fields` was asked for a struct. */
  fields?: ExportedField[];
}

export interface EvaluateResult {
  /** One per requested export, same order. */
  exports: ExportedValue[];
}

/** A values file: its tree path decides the format (.cue, .json, .yaml, .yml). */
export interface ValuesFile {
  path: string;
  content: string | Uint8Array;
  /** Where the fields of a generated file were written (only error positions use it). */
  origin?: ValuesOrigin;
}

/** Files that, loaded as one package, hold a generated values file's fields at `path` (a CUE path). */
export interface ValuesOrigin {
  files: FileTree;
  entries: string[];
  path: string;
}

export interface MergeValuesRequest {
  /** The module's values file, compiled on its own. */
  base: ValuesFile;
  /** Applied on top of the base in order. */
  overlays?: ValuesFile[];
  /** Top-level field holding the values (default `values`). */
  selector?: string;
}

export interface MergeValuesResult {
  /**
   * The merged value as Timoni writes it into the module (`values: <cue>`):
   * Go's `%v` of the cue.Value, so a module hashing `yaml.Marshal(config)`
   * gets Timoni's checksum. Hidden fields are not part of it.
   */
  cue: string;
  /** What Timoni stores in the instance: `cue` compiled alone, evaluated and printed again (concrete where it can be). */
  stored: string;
  /** JSON text when the merged value is concrete. */
  json?: string;
}

export interface ListAttributesRequest {
  /** CUE sources to scan; non-.cue files are skipped. */
  files: FileTree;
  /** Attribute name without `@`, e.g. `timoni`. */
  name: string;
}

/** A field carrying the attribute (only its first attribute of that name counts). */
export interface AttributeField {
  file: string;
  /** Label path from the file root, e.g. `bundle.instances.app.values.host`. */
  path: string;
  label: string;
  /** `?` or `!` when the field is optional or required. */
  constraint?: '?' | '!';
  /** Attribute body, e.g. `runtime:string:HOST`. */
  body: string;
  line: number;
  column: number;
  /** Identifies the field for rewriteFields. */
  fieldOffset: number;
}

/** A replacement value: `string` is quoted for you, `number` must be a CUE number literal. */
export interface TypedValue {
  kind: 'string' | 'number' | 'bool' | 'json' | 'cue';
  text: string;
}

export interface RewriteFieldsRequest {
  path: string;
  content: string | Uint8Array;
  replacements: Array<{ fieldOffset: number; value: TypedValue }>;
}

export interface ExpressionRequest {
  /** A CUE expression, e.g. `obj.data."ca.crt"`; std packages resolve without imports. */
  expression: string;
  /** Names bound to JSON values, e.g. `{ obj: secret }`. */
  bindings?: Record<string, unknown>;
}

export interface ExpressionResult {
  kind: string;
  /** Set when the result is a string. */
  string?: string;
  json: string;
  /** CUE text of the result, e.g. `42`, `true`. */
  cue: string;
}

/** Per-call limits; each defaults to the engine's. */
export interface CallOptions {
  timeoutMs?: number;
  /**
   * Who the call is for (the hub: `namespace/name` of the Project). Queued
   * calls are served round-robin across tenants, and tenants whose calls
   * recently hit the timeout or memory cap share a bounded part of the pool.
   * Calls without one share the tenant ''.
   */
  tenant?: string;
}

/** A module's root images.cue, read as `timoni mod push` does for its sh.timoni.images annotation. */
export interface ModuleImagesRequest {
  file: ValuesFile;
}

/** One image struct under `values`: its CUE path and `repository[:tag][@digest]` from the fields' defaults. */
export interface ModuleImage {
  path: string;
  reference: string;
}

/** Positions in a build's generated values file (`values: <merged cue>`) to map back to the values files. */
export interface ValuesOriginsRequest extends MergeValuesRequest {
  /** The generated file, as the build gave it to CUE. */
  overlay: ValuesFile;
  positions: Array<Pick<CuePosition, 'line' | 'column'>>;
}
