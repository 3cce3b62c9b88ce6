import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsObject, registerDecorator, ValidateIf, ValidateNested, type ValidationOptions } from 'class-validator';

/** RFC 1123 label, as Kubernetes names namespaces and most objects. */
export const DNS_LABEL = /^(?=.{1,63}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const DNS_LABEL_MESSAGE = 'must be a DNS label: at most 63 lowercase letters, digits or "-", starting and ending with a letter or digit';

const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$/;
const LABEL_PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;

/** Why `key` is not a Kubernetes label (or annotation) key, or undefined. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length > 253 || !LABEL_PREFIX.test(prefix))) return `key "${key}": prefix must be a DNS subdomain`;
  if (!LABEL_NAME.test(name)) return `key "${key}": name must be 1-63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit`;
  return undefined;
}

export function labelValueProblem(key: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return `value of "${key}" must be a string`;
  if (!LABEL_VALUE.test(value)) return `value of "${key}" must be at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit`;
  return undefined;
}

/** Kubernetes' own limit on all annotations of an object together. */
export const MAX_ANNOTATIONS_BYTES = 256 * 1024;

function stringMapDecorator(name: string, valueCheck: (k: string, v: unknown) => string | undefined, options?: ValidationOptions, maxTotalBytes?: number) {
  return (object: object, propertyName: string): void => {
    let problem = '';
    registerDecorator({
      name,
      target: object.constructor,
      propertyName,
      options,
      validator: {
        validate(value: unknown): boolean {
          if (value === undefined) return true;
          if (value === null || typeof value !== 'object' || Array.isArray(value)) {
            problem = 'must be an object of string keys and string values';
            return false;
          }
          let total = 0;
          for (const [k, v] of Object.entries(value)) {
            const p = labelKeyProblem(k) ?? valueCheck(k, v);
            if (p) {
              problem = p;
              return false;
            }
            total += Buffer.byteLength(k) + Buffer.byteLength(String(v));
          }
          if (maxTotalBytes !== undefined && total > maxTotalBytes) {
            problem = `keys and values together must be at most ${maxTotalBytes / 1024} KiB, as Kubernetes allows`;
            return false;
          }
          return true;
        },
        defaultMessage: () => problem,
      },
    });
  };
}

/** Kubernetes labels: a map of valid label keys to valid label values. */
export function IsLabelMap(options?: ValidationOptions) {
  return stringMapDecorator('isLabelMap', labelValueProblem, options);
}

/** Kubernetes annotations: valid keys, any string values. */
export function IsAnnotationMap(options?: ValidationOptions) {
  return stringMapDecorator('isAnnotationMap', (k, v) => (typeof v === 'string' ? undefined : `value of "${k}" must be a string`), options, MAX_ANNOTATIONS_BYTES);
}

/** Like IsOptional, but only `undefined` counts as absent: an explicit null is checked (and refused) like any value. */
export function Optional(): PropertyDecorator {
  return ValidateIf((_o, v) => v !== undefined);
}

/** A nested DTO: must be an object (not an array or scalar) and is validated as `type`. */
export function NestedObject(type: () => new () => object): PropertyDecorator {
  return applyDecorators(IsObject({ message: 'must be an object' }), ValidateNested(), Type(type));
}

/**
 * A URL without user info: `https://user:pw@host` would carry a password that
 * is then stored, returned and logged as a plain URL. Credentials have fields
 * of their own, sealed and never returned.
 */
export function NoUrlCredentials(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'noUrlCredentials',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: 'must not contain a user name or password (user@host); give credentials in their own fields', ...options },
      validator: {
        validate(value: unknown): boolean {
          if (typeof value !== 'string') return true;
          try {
            const url = new URL(value);
            return url.username === '' && url.password === '';
          } catch {
            // malformed URLs are reported by IsUrl
            return !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value);
          }
        },
      },
    });
}

/** Visible ASCII, no spaces or line breaks: what an Authorization header can carry. */
export const HEADER_TOKEN = /^[\x21-\x7e]+$/;
