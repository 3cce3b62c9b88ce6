import { applyDecorators } from '@nestjs/common';
import { IsString, MaxLength } from 'class-validator';
import { PatternCheck } from '../common/validators';
import type { LabelSelector, LabelSelectorRequirement, TargetSelector } from '../database/entities';

/** What selection looks at on a cluster. */
export interface ClusterFacts {
  name: string;
  group: string;
  labels: Record<string, string>;
}

/** Kubernetes semantics: every matchLabels pair and every expression must hold; an empty selector matches all. */
export function matchesLabelSelector(sel: LabelSelector, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) {
    if (labels[k] !== v) return false;
  }
  return (sel.matchExpressions ?? []).every((e) => matchesRequirement(e, labels));
}

function matchesRequirement(r: LabelSelectorRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  switch (r.operator) {
    case 'In':
      return has && (r.values ?? []).includes(labels[r.key]);
    case 'NotIn':
      return !has || !(r.values ?? []).includes(labels[r.key]);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
  }
}

/**
 * A Project targets a cluster when the cluster's name is listed, or its group
 * is listed, or the label selector (when given) matches. Nothing given selects nothing.
 */
export function clusterIsTargeted(t: TargetSelector, c: ClusterFacts): boolean {
  if (t.names?.includes(c.name)) return true;
  if (t.groups?.includes(c.group)) return true;
  return t.labelSelector !== undefined && matchesLabelSelector(t.labelSelector, c.labels);
}

export class SelectorSyntaxError extends Error {
  constructor(
    text: string,
    readonly detail: string,
  ) {
    super(`labelSelector "${text}": ${detail}`);
    this.name = 'SelectorSyntaxError';
  }
}

const SELECTOR_KEY = '[A-Za-z0-9][-A-Za-z0-9_./]*';
const SELECTOR_VALUE = '[-A-Za-z0-9_.]*';
const SELECTOR_REQUIREMENT = [
  `${SELECTOR_KEY} *(?:==|=|!=) *${SELECTOR_VALUE}`,
  `${SELECTOR_KEY} +(?:in|notin) *\\( *${SELECTOR_VALUE}(?: *, *${SELECTOR_VALUE})* *\\)`,
  `! *${SELECTOR_KEY}`,
  SELECTOR_KEY,
].join('|');

/**
 * What a `labelSelector` query parameter accepts: the grammar parseLabelSelector
 * reads, spaces as the only blanks. The API checks it and the OpenAPI document
 * shows it, so both say the same.
 */
export const LABEL_SELECTOR_QUERY = new RegExp(`^ *(?:${SELECTOR_REQUIREMENT})(?: *, *(?:${SELECTOR_REQUIREMENT}))* *$`);
export const LABEL_SELECTOR_QUERY_MESSAGE = 'must be a label selector such as `env=prod,region in (eu,us),!legacy`';

/**
 * Parses the query-string form used by kubectl: `k=v`, `k==v`, `k!=v`, `k`,
 * `!k`, `k in (a,b)`, `k notin (a,b)`, joined by commas.
 */
export function parseLabelSelector(text: string): LabelSelector {
  const matchLabels: Record<string, string> = {};
  const matchExpressions: LabelSelectorRequirement[] = [];
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (depth < 0) throw new SelectorSyntaxError(text, 'unbalanced ")"');
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (depth !== 0) throw new SelectorSyntaxError(text, 'unbalanced "("');
  parts.push(cur);
  const KEY = '([A-Za-z0-9][-A-Za-z0-9_./]*)';
  const VAL = '([-A-Za-z0-9_.]*)';
  for (const raw of parts) {
    const p = raw.trim();
    let m: RegExpExecArray | null;
    if (p === '') throw new SelectorSyntaxError(text, 'empty requirement');
    else if ((m = new RegExp(`^${KEY}\\s*(==|=)\\s*${VAL}$`).exec(p))) matchLabels[m[1]] = m[3];
    else if ((m = new RegExp(`^${KEY}\\s*!=\\s*${VAL}$`).exec(p))) matchExpressions.push({ key: m[1], operator: 'NotIn', values: [m[2]] });
    else if ((m = new RegExp(`^${KEY}\\s+(in|notin)\\s*\\(([^)]*)\\)$`).exec(p))) {
      const values = m[3].split(',').map((v) => v.trim());
      if (values.some((v) => !new RegExp(`^${VAL}$`).test(v))) throw new SelectorSyntaxError(text, `bad value in "${p}"`);
      matchExpressions.push({ key: m[1], operator: m[2] === 'in' ? 'In' : 'NotIn', values });
    } else if ((m = new RegExp(`^!\\s*${KEY}$`).exec(p))) matchExpressions.push({ key: m[1], operator: 'DoesNotExist' });
    else if ((m = new RegExp(`^${KEY}$`).exec(p))) matchExpressions.push({ key: m[1], operator: 'Exists' });
    else throw new SelectorSyntaxError(text, `cannot parse "${p}"`);
  }
  return { matchLabels, matchExpressions };
}

/**
 * A `labelSelector` query parameter: a string of at most 4096 characters
 * matching LABEL_SELECTOR_QUERY, with the parser's own message when it fails.
 * What it lets through, parseLabelSelector reads without error.
 */
export function IsLabelSelectorQuery(): PropertyDecorator {
  return applyDecorators(
    IsString({ message: 'must be a string' }),
    MaxLength(4096, { message: 'must be at most 4096 characters' }),
    PatternCheck('isLabelSelectorQuery', LABEL_SELECTOR_QUERY, selectorProblem, LABEL_SELECTOR_QUERY_MESSAGE),
  );
}

function selectorProblem(text: string): string | undefined {
  try {
    parseLabelSelector(text);
    return undefined;
  } catch (err) {
    if (!(err instanceof SelectorSyntaxError)) throw err;
    return err.detail;
  }
}
