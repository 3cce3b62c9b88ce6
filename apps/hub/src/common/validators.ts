import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsObject, IsString, MaxLength, registerDecorator, ValidateIf, ValidateNested, type ValidationOptions } from 'class-validator';

/** A row id as the database makes them (gen_random_uuid): checked before a lookup, so other text is a 404 without a query. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** RFC 1123 label, as Kubernetes names namespaces and most objects. */
export const DNS_LABEL = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;
export const DNS_LABEL_MESSAGE = 'must be a DNS label: at most 63 lowercase letters, digits or "-", starting and ending with a letter or digit';

const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$/;
const LABEL_PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** A label value: empty, or up to 63 of these characters. */
export const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;
export const LABEL_KEY_MESSAGE = 'must be a label key: an optional DNS subdomain prefix and "/", then 1-63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit';
/** A label or annotation key as one expression (labelKeyProblem says what is wrong with one). */
export const LABEL_KEY = new RegExp(
  `^(?:(?=[^/]{1,253}/)${LABEL_PREFIX.source.slice(1, -1)}/)?${LABEL_NAME.source.slice(1, -1)}$`,
);

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

/**
 * A string check whose rule is `pattern` (published as the OpenAPI pattern;
 * see openapi/validation-keywords) and whose message `problemOf` may make
 * more precise. Strings only: other types are IsString's to report.
 */
export function PatternCheck(name: string, pattern: RegExp, problemOf: (value: string) => string | undefined, fallback: string): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    let problem = fallback;
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(propertyName),
      constraints: [pattern],
      validator: {
        validate(value: unknown): boolean {
          if (typeof value !== 'string') return true;
          const precise = problemOf(value);
          problem = precise ?? fallback;
          return precise === undefined && pattern.test(value);
        },
        defaultMessage: () => problem,
      },
    });
  };
}

/** A label key (LABEL_KEY), with labelKeyProblem's message naming what is wrong. */
export function IsLabelKey(): PropertyDecorator {
  return PatternCheck('isLabelKey', LABEL_KEY, labelKeyProblem, LABEL_KEY_MESSAGE);
}

/** Kubernetes' own limit on all annotations of an object together. */
export const MAX_ANNOTATIONS_BYTES = 256 * 1024;

type ValueCheck = (k: string, v: unknown) => string | undefined;

/** In a merge patch a null value removes the key; every other value is checked as usual. */
const orNull = (check: ValueCheck): ValueCheck => (k, v) => (v === null ? undefined : check(k, v));

function stringMapDecorator(name: string, valueCheck: ValueCheck, options?: ValidationOptions, maxTotalBytes?: number) {
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

const annotationValueProblem: ValueCheck = (k, v) => (typeof v === 'string' ? undefined : `value of "${k}" must be a string`);

/** Kubernetes annotations: valid keys, any string values. */
export function IsAnnotationMap(options?: ValidationOptions) {
  return stringMapDecorator('isAnnotationMap', annotationValueProblem, options, MAX_ANNOTATIONS_BYTES);
}

/** A merge patch of labels: IsLabelMap, where null removes a label. */
export function IsLabelMapPatch(options?: ValidationOptions) {
  return stringMapDecorator('isLabelMapPatch', orNull(labelValueProblem), options);
}

/** A merge patch of annotations: IsAnnotationMap, where null removes an annotation. */
export function IsAnnotationMapPatch(options?: ValidationOptions) {
  return stringMapDecorator('isAnnotationMapPatch', orNull(annotationValueProblem), options, MAX_ANNOTATIONS_BYTES);
}

/** Like IsOptional, but only `undefined` counts as absent: an explicit null is checked (and refused) like any value. */
export function Optional(): PropertyDecorator {
  return ValidateIf((_o, v) => v !== undefined);
}

/** In a merge patch (RFC 7396) null removes the field: absent and null skip the checks, the service gives null its meaning. */
export function OptionalOrNull(): PropertyDecorator {
  return ValidateIf((_o, v) => v !== undefined && v !== null);
}

/** A nested DTO: must be an object (not an array or scalar) and is validated as `type`. */
export function NestedObject(type: () => new () => object): PropertyDecorator {
  return applyDecorators(IsObject({ message: 'must be an object' }), ValidateNested(), Type(type));
}

function hasUserInfo(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url);
  }
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
          return !hasUserInfo(value);
        },
      },
    });
}

/** Visible ASCII, no spaces or line breaks: what an Authorization header can carry. */
export const HEADER_TOKEN = /^[\x21-\x7e]+$/;

const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const H16 = '[0-9A-Fa-f]{1,4}';
const IPV6 = [
  `(?:${H16}:){7}${H16}`,
  `(?:${H16}:){1,7}:`,
  `(?:${H16}:){1,6}:${H16}`,
  `(?:${H16}:){1,5}(?::${H16}){1,2}`,
  `(?:${H16}:){1,4}(?::${H16}){1,3}`,
  `(?:${H16}:){1,3}(?::${H16}){1,4}`,
  `(?:${H16}:){1,2}(?::${H16}){1,5}`,
  `${H16}:(?::${H16}){1,6}`,
  `:(?:(?::${H16}){1,7}|:)`,
].join('|');
// The last label starts with a letter: URL parsers read a numeric last label as IPv4.
const DNS_HOST = '(?:[A-Za-z0-9](?:[-A-Za-z0-9]{0,61}[A-Za-z0-9])?\\.)*[A-Za-z](?:[-A-Za-z0-9]{0,61}[A-Za-z0-9])?';
const PORT = '(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0)';
const PATH_CHARS = "[-A-Za-z0-9._~!$&'()*+,;=:@%/]";
const QUERY_CHARS = "[-A-Za-z0-9._~!$&'()*+,;=:@%/?]";

/**
 * An http(s) URL the hub can call: a DNS name, IPv4 or [IPv6] host, an
 * optional port, path and query; no user info and no fragment. The same
 * expression is the API's check and the OpenAPI pattern, so the two agree.
 */
export const HTTP_URL = new RegExp(`^https?://(?:${DNS_HOST}|(?:${OCTET}\\.){3}${OCTET}|\\[(?:${IPV6})\\])(?::${PORT})?(?:/${PATH_CHARS}*)?(?:\\?${QUERY_CHARS}*)?$`);
export const HTTP_URL_MESSAGE = 'must be an http(s) URL';

/**
 * A URL that is itself a secret (a chat webhook's): as HTTP_URL, but plain
 * http only to a loopback host (localhost, 127.0.0.0/8, [::1]), so it never
 * crosses a network in clear. Also the OpenAPI pattern.
 */
export const SECRET_URL = new RegExp(
  `^(?:https://(?:${DNS_HOST}|(?:${OCTET}\\.){3}${OCTET}|\\[(?:${IPV6})\\])|http://(?:localhost|127(?:\\.${OCTET}){3}|\\[::1\\]))(?::${PORT})?(?:/${PATH_CHARS}*)?(?:\\?${QUERY_CHARS}*)?$`,
);

/**
 * An http(s) URL field (see HTTP_URL): a string; user info gets its own
 * message. `rule` narrows it (SECRET_URL): the pattern is both the check and
 * the OpenAPI pattern, and `message` may say which part a value broke.
 */
export function IsHttpUrl(rule: { name: string; pattern: RegExp; message: (value: unknown) => string } = { name: 'isHttpUrl', pattern: HTTP_URL, message: () => HTTP_URL_MESSAGE }): PropertyDecorator {
  return applyDecorators(
    IsString({ message: 'must be a string' }),
    MaxLength(2048, { message: 'must be at most 2048 characters' }),
    NoUrlCredentials(),
    (target: object, propertyName: string | symbol) =>
      registerDecorator({
        name: rule.name,
        target: target.constructor,
        propertyName: String(propertyName),
        constraints: [rule.pattern],
        options: { message: (args) => rule.message(args.value) },
        validator: {
          // a URL with user info is reported by NoUrlCredentials alone
          validate: (value: unknown) => typeof value !== 'string' || rule.pattern.test(value) || hasUserInfo(value),
        },
      }),
  );
}

/** A PEM block, or base64 of one, as kubeconfigs carry certificates and keys. */
export const PEM_MESSAGE = 'must be PEM (-----BEGIN …) or base64 of PEM';
// eslint-disable-next-line no-control-regex -- NUL and control characters are what it refuses
export const PEM_DATA = /^[ \t\r\n]*(?:-----BEGIN[^\u0000]*|LS0tLS1CRUdJT[g-v][A-Za-z0-9+/=\r\n]*)$/;
