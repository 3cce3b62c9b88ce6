import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import type { LabelSelector } from '../database/entities';

/** Whether `sel` selects anything at all (an empty selector matches every cluster). */
export function hasConditions(sel: LabelSelector | undefined): boolean {
  return Object.keys(sel?.matchLabels ?? {}).length > 0 || (sel?.matchExpressions?.length ?? 0) > 0;
}

/** Adds WHERE clauses matching `sel` against the jsonb `labels` column of `alias` (same rules as matchesLabelSelector). */
export function whereLabelsMatch<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>, alias: string, sel: LabelSelector | undefined): SelectQueryBuilder<T> {
  const col = `${alias}.labels`;
  let i = 0;
  const p = () => `ls_${alias}_${i++}`;
  const equal = Object.entries(sel?.matchLabels ?? {});
  if (equal.length > 0) {
    // containment, so the GIN index on labels answers it
    const v = p();
    qb.andWhere(`${col} @> CAST(:${v} AS jsonb)`, { [v]: JSON.stringify(Object.fromEntries(equal)) });
  }
  for (const e of sel?.matchExpressions ?? []) {
    const k = p();
    const vs = p();
    if (e.operator === 'Exists') qb.andWhere(`${col} ? :${k}`, { [k]: e.key });
    else if (e.operator === 'DoesNotExist') qb.andWhere(`NOT (${col} ? :${k})`, { [k]: e.key });
    else if (e.operator === 'In') qb.andWhere(`${col} ->> :${k} IN (:...${vs})`, { [k]: e.key, [vs]: e.values ?? [] });
    else qb.andWhere(`(NOT (${col} ? :${k}) OR ${col} ->> :${k} NOT IN (:...${vs}))`, { [k]: e.key, [vs]: e.values ?? [] });
  }
  return qb;
}
