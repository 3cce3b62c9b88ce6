import type { LabelSelector } from '../database/entities';
import type { SqlParams } from './sql';

/** Whether `sel` selects anything at all (an empty selector matches every cluster). */
export function hasConditions(sel: LabelSelector | undefined): boolean {
  return Object.keys(sel?.matchLabels ?? {}).length > 0 || (sel?.matchExpressions?.length ?? 0) > 0;
}

/** Whether the SQL for `sel` changes with its content (its expressions), not only with its parameters. */
export function variesInShape(sel: LabelSelector | undefined): boolean {
  return (sel?.matchExpressions?.length ?? 0) > 0;
}

/** SQL conditions matching `sel` against the jsonb labels `column` (same rules as matchesLabelSelector). */
export function labelSelectorConditions(column: string, sel: LabelSelector | undefined, params: SqlParams): string[] {
  const out: string[] = [];
  const equal = Object.entries(sel?.matchLabels ?? {});
  // containment, so the GIN index on labels answers it
  if (equal.length > 0) out.push(`${column} @> CAST(${params.add(JSON.stringify(Object.fromEntries(equal)))} AS jsonb)`);
  for (const e of sel?.matchExpressions ?? []) {
    const key = params.add(e.key);
    if (e.operator === 'Exists') out.push(`${column} ? ${key}`);
    else if (e.operator === 'DoesNotExist') out.push(`NOT (${column} ? ${key})`);
    else {
      const values = params.add(e.values ?? []);
      if (e.operator === 'In') out.push(`${column} ->> ${key} = ANY(CAST(${values} AS text[]))`);
      else out.push(`(NOT (${column} ? ${key}) OR ${column} ->> ${key} <> ALL(CAST(${values} AS text[])))`);
    }
  }
  return out;
}
