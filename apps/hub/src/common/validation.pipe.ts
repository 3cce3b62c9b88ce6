import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';
import { InvalidInputError } from './errors';
import { rawInputProblems } from './raw-input';

/** A DTO may add checks that span fields; they are reported with the per-field ones. */
export interface CrossFieldChecks {
  crossFieldProblems(): string[];
}

const PRIMITIVES = new Set<unknown>([String, Number, Boolean, Array, Object]);

/**
 * The one place request input is validated: bodies and query strings become
 * DTO instances (defaults applied) or a 400 that lists every problem, naming
 * each field by its path. Unknown fields are problems too.
 */
@Injectable()
export class DtoValidationPipe implements PipeTransform {
  async transform(value: unknown, meta: ArgumentMetadata): Promise<unknown> {
    if (meta.type === 'param' && typeof value === 'string' && value.includes('\u0000')) {
      throw new InvalidInputError([`path parameter ${meta.data ?? ''}: must not contain NUL characters`]);
    }
    const type = meta.metatype;
    if (!type || PRIMITIVES.has(type) || (meta.type !== 'body' && meta.type !== 'query')) return value;
    // `?group=` means no group filter, as forms and generated clients send it
    if (meta.type === 'query' && value && typeof value === 'object') value = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== ''));
    const raw = rawInputProblems(value, meta.type === 'body' ? 'request body' : 'query');
    if (raw.length > 0) throw new InvalidInputError(raw);
    if (meta.type === 'body' && value === undefined) value = {};
    if (meta.type === 'body' && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw new InvalidInputError(['request body: expected a JSON object']);
    }
    const instance = plainToInstance(type as new () => object, value ?? {}, { enableImplicitConversion: meta.type === 'query' });
    const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
    const problems = flattenValidationErrors(errors);
    if (typeof (instance as Partial<CrossFieldChecks>).crossFieldProblems === 'function') {
      try {
        problems.push(...(instance as CrossFieldChecks).crossFieldProblems());
      } catch (err) {
        // Only malformed fields make a check throw, and those are reported above.
        if (problems.length === 0) throw err;
      }
    }
    if (problems.length > 0) throw new InvalidInputError(problems);
    return instance;
  }
}

export function flattenValidationErrors(errors: ValidationError[], prefix = '', shapeReported = false): string[] {
  const out: string[] = [];
  for (const e of errors) {
    const path = prefix ? (/^\d+$/.test(e.property) ? `${prefix}[${e.property}]` : `${prefix}.${e.property}`) : e.property;
    if ((e.value === undefined || e.value === null) && e.constraints) {
      // a missing or null field fails every rule on it; one line says it
      out.push(e.value === undefined ? `${path}: required` : `${path}: must not be null`);
      continue;
    }
    for (const [rule, message] of Object.entries(e.constraints ?? {})) {
      // "must be an object" already says what "nested property … must be either object or array" would
      if (rule === 'nestedValidation' && (shapeReported || e.constraints?.isObject)) continue;
      out.push(`${path}: ${message.replace(/^property (\S+) should not exist$/, 'unknown field')}`);
    }
    if (e.children?.length) out.push(...flattenValidationErrors(e.children, path, e.constraints?.isObject !== undefined));
  }
  return out;
}
