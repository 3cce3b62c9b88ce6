import { DECORATORS } from '@nestjs/swagger';
import { getMetadataStorage, type MetadataStorage } from 'class-validator';
import { LABEL_KEY, LABEL_VALUE } from '../common/validators';
import { LABEL_SELECTOR_GRAMMAR } from '../targeting/label-selector-parser';

type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];

type Keywords = Record<string, unknown>;
/** A DTO class as class-validator keys its registry. */
type DtoClass = { name: string; prototype: object };

/** JSON Schema keywords for one class-validator check, or undefined when the check has none. */
function keywordsOf(m: ValidationMetadata): Keywords | undefined {
  const [first] = m.constraints ?? [];
  switch (m.name) {
    case 'matches':
    case 'isHttpUrl':
    case 'isWebhookUrl':
    case 'isLabelKey':
      return { pattern: (first as RegExp).source };
    case 'isLabelSelectorQuery':
      // The parser is the only statement of this grammar; a pattern would be a second copy that can disagree.
      return { format: LABEL_SELECTOR_FORMAT, minLength: 1, description: `A label selector on the clusters' labels, kubectl syntax: ${LABEL_SELECTOR_GRAMMAR}` };
    case 'maxLength':
      return { maxLength: first };
    case 'minLength':
      return { minLength: first };
    case 'max':
      return { maximum: first };
    case 'min':
      return { minimum: first };
    case 'isInt':
      return { type: 'integer' };
    case 'isIn':
      return { enum: [...(first as unknown[])] };
    case 'arrayMaxSize':
      return { maxItems: first };
    case 'arrayMinSize':
      return { minItems: first };
    case 'arrayUnique':
      return { uniqueItems: true };
    case 'isLabelMap':
      return { type: 'object', propertyNames: { pattern: LABEL_KEY.source }, additionalProperties: { type: 'string', pattern: LABEL_VALUE.source } };
    case 'isAnnotationMap':
      // the pipe refuses NUL in annotation values too
      return { type: 'object', propertyNames: { pattern: LABEL_KEY.source }, additionalProperties: { type: 'string', pattern: NO_NUL } };
    case 'isLabelMapPatch':
      return { type: 'object', propertyNames: { pattern: LABEL_KEY.source }, additionalProperties: { type: ['string', 'null'], pattern: LABEL_VALUE.source } };
    case 'isAnnotationMapPatch':
      return { type: 'object', propertyNames: { pattern: LABEL_KEY.source }, additionalProperties: { type: ['string', 'null'], pattern: NO_NUL } };
    default:
      return undefined;
  }
}

const NO_NUL = '^[^\\u0000]*$';
/** The OpenAPI format of a labelSelector parameter: a name for the grammar, which the contract test's hooks generate. */
export const LABEL_SELECTOR_FORMAT = 'label-selector';
const MAP_CHECKS = new Set(['isLabelMap', 'isAnnotationMap', 'isLabelMapPatch', 'isAnnotationMapPatch']);

/** Every class the validation pipe checks, with the checks each declares per property (a base class holds its own). */
function validatedClasses(): Map<DtoClass, Map<string, ValidationMetadata[]>> {
  // class-validator keeps its registry private; reading it is the only way to list the DTOs it knows.
  const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<DtoClass, ValidationMetadata[]> };
  const byClass = new Map<DtoClass, Map<string, ValidationMetadata[]>>();
  for (const [target, list] of storage.validationMetadatas) {
    const props = new Map<string, ValidationMetadata[]>();
    for (const m of list) props.set(m.propertyName, [...(props.get(m.propertyName) ?? []), m]);
    byClass.set(target, props);
  }
  return byClass;
}

/**
 * Writes what the validation pipe checks (patterns, lengths, ranges, enums,
 * list sizes) into the Swagger metadata of the same properties, so the
 * OpenAPI document states the rules the API enforces from one source.
 * Options given in @ApiProperty win. Returns the properties it could not
 * document: a validated property without @ApiProperty.
 */
export function documentValidationRules(): string[] {
  const undocumented: string[] = [];
  for (const [target, props] of validatedClasses()) {
    for (const [property, checks] of props) {
      const existing = Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, target.prototype, property) as Keywords | undefined;
      if (!existing) {
        undocumented.push(`${target.name}.${property}`);
        continue;
      }
      const derived: Keywords = {};
      const maps: Keywords = {};
      for (const check of checks) Object.assign(MAP_CHECKS.has(check.name ?? '') ? maps : derived, keywordsOf(check));
      // The pipe refuses NUL in every string (PostgreSQL cannot store it); patterns already exclude it.
      // A format with its own grammar (which already excludes NUL) needs no pattern beside it.
      if (checks.some((c) => c.name === 'isString') && derived.pattern === undefined && derived.format === undefined) derived.pattern = NO_NUL;
      // Swagger moves pattern and lengths of an array property into its items, as `each` checks mean.
      // A map's key and value rules replace the plain `additionalProperties: string` @ApiProperty needs.
      Reflect.defineMetadata(DECORATORS.API_MODEL_PROPERTIES, { ...derived, ...existing, ...maps }, target.prototype, property);
    }
  }
  return undocumented;
}
