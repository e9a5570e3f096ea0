/**
 * The schema allowlist: a `requestedSchema` must be exactly what spec 2025-11-25 allows (a flat
 * object of primitive fields, §1.4 of the spec notes). Where the SDK strips unknown keywords
 * silently, this reports each one, naming the field and the keyword, as `E_SCHEMA_NOT_ALLOWED`.
 */

import { GuardCode } from '../protocol/errors.js';
import type { Finding } from '../protocol/verdict.js';
import { isStringFormat } from './formats.js';
import { valueProblem, type FieldShape } from './shape.js';

/** One property of the schema, read as far as it could be read. */
export interface FieldSpec {
  readonly name: string;
  readonly shape: FieldShape;
  /** `title` when it is a string. */
  readonly title: string | null;
  /** `description` when it is a string. */
  readonly description: string | null;
  /** `format: "password"`: both a schema violation and a credential signal. */
  readonly formatPassword: boolean;
  /** `writeOnly: true`: both a schema violation and a credential signal. */
  readonly writeOnly: boolean;
  /** String defaults (one, or the items of a multi-select default): scanned for secrets and URLs. */
  readonly stringDefaults: readonly string[];
  /** Option titles and legacy `enumNames`: shown to the user, so scanned for URLs. */
  readonly optionTitles: readonly string[];
}

export interface SchemaReading {
  /** The schema's own top-level `title` and `description` (form-level texts, read like the message). */
  readonly title: string | null;
  readonly description: string | null;
  /** Every property, in the schema's order. */
  readonly fields: readonly FieldSpec[];
  /** `required`, when it is a list of strings (duplicates and unknown names reported, kept out). */
  readonly required: readonly string[];
  readonly findings: readonly Finding[];
}

/** Most properties a form may have; a larger schema is refused (and read only that far). */
export const MAX_FIELDS = 256;

/** Code of the informational finding for the non-standard `pattern` keyword. */
export const PATTERN_INFO = 'I_SCHEMA_PATTERN';

/**
 * Code of the warning for a `default` that does not fit an optional field (a Python framework's
 * `website: HttpUrl | None = ""`): the user sees and fixes it; the form is not refused for it.
 * A field is optional when the schema lists `required` without it. A required field's invalid
 * default, or any invalid default in a schema without `required`, stays an `E_SCHEMA_NOT_ALLOWED` error.
 */
export const DEFAULT_WARNING = 'W_SCHEMA_DEFAULT';

// `title` and `description` at the top level only annotate the form (schema generators such as
// pydantic emit a top-level title); they are read as strings and scanned like field text.
const TOP_LEVEL_KEYS = new Set(['$schema', 'type', 'properties', 'required', 'title', 'description']);
const COMMON_KEYS = ['type', 'title', 'description'] as const;
const STRING_KEYS = new Set([...COMMON_KEYS, 'minLength', 'maxLength', 'format', 'default']);
const NUMBER_KEYS = new Set([...COMMON_KEYS, 'minimum', 'maximum', 'default']);
const BOOLEAN_KEYS = new Set([...COMMON_KEYS, 'default']);
const UNTITLED_SINGLE_KEYS = new Set([...COMMON_KEYS, 'enum', 'enumNames', 'default']);
const TITLED_SINGLE_KEYS = new Set([...COMMON_KEYS, 'oneOf', 'default']);
const MULTI_KEYS = new Set([...COMMON_KEYS, 'minItems', 'maxItems', 'items', 'default']);

/** A field or keyword name as it appears in a message: JSON-quoted (control characters and lone surrogates escaped), long names cut. */
export function quoteName(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 77)}...` : name);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function own(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

class Reporter {
  readonly findings: Finding[] = [];

  schema(message: string, field?: string): void {
    this.findings.push(
      field === undefined
        ? { code: GuardCode.schemaNotAllowed, severity: 'error', message }
        : { code: GuardCode.schemaNotAllowed, severity: 'error', message, field },
    );
  }

  keyword(field: string, keyword: string, problem: string): void {
    this.schema(`field ${quoteName(field)}: keyword ${quoteName(keyword)} ${problem}`, field);
  }

  info(field: string, message: string): void {
    this.findings.push({ code: PATTERN_INFO, severity: 'info', message, field });
  }

  defaultWarning(field: string, problem: string): void {
    this.findings.push({
      code: DEFAULT_WARNING,
      severity: 'warning',
      message:
        `field ${quoteName(field)}: keyword "default" ${problem}; the field is optional, so the form is shown with the ` +
        `default to correct`,
      field,
    });
  }
}

/** Why a keyword is not allowed, for the keywords people reach for most. */
function unknownKeywordProblem(keyword: string): string {
  switch (keyword) {
    case 'properties':
    case 'additionalProperties':
      return 'is not allowed: form fields are flat primitives, nested objects are not supported';
    case '$ref':
    case '$defs':
    case 'definitions':
    case 'allOf':
    case 'anyOf':
    case 'not':
    case 'if':
    case 'then':
    case 'else':
      return 'is not allowed: form schemas support no references or combinators';
    case 'writeOnly':
      return 'is not allowed in a form schema (and marks a secret: use URL mode for secrets)';
    default:
      return 'is not allowed in a form schema (spec 2025-11-25)';
  }
}

interface Common {
  readonly title: string | null;
  readonly description: string | null;
}

function readCommon(r: Reporter, name: string, raw: Record<string, unknown>): Common {
  const title = own(raw, 'title');
  const description = own(raw, 'description');
  if (title !== undefined && typeof title !== 'string') r.keyword(name, 'title', 'must be a string');
  if (description !== undefined && typeof description !== 'string') r.keyword(name, 'description', 'must be a string');
  return { title: typeof title === 'string' ? title : null, description: typeof description === 'string' ? description : null };
}

function checkKeys(r: Reporter, name: string, raw: Record<string, unknown>, allowed: ReadonlySet<string>): void {
  for (const key of Object.keys(raw)) {
    if (allowed.has(key)) continue;
    if (key === 'pattern') {
      if (typeof raw[key] === 'string')
        r.info(name, `field ${quoteName(name)}: keyword "pattern" is not part of spec 2025-11-25; tolerated, not enforced`);
      else r.keyword(name, key, 'must be a string');
      continue;
    }
    r.keyword(name, key, unknownKeywordProblem(key));
  }
}

function readOptionalCount(r: Reporter, name: string, raw: Record<string, unknown>, key: string): number | null {
  const value = own(raw, key);
  if (value === undefined) return null;
  if (!isNonNegativeInteger(value)) {
    r.keyword(name, key, 'must be a non-negative integer');
    return null;
  }
  return value;
}

function readOptionalNumber(r: Reporter, name: string, raw: Record<string, unknown>, key: string): number | null {
  const value = own(raw, key);
  if (value === undefined) return null;
  if (!isFiniteNumber(value)) {
    r.keyword(name, key, 'must be a finite number');
    return null;
  }
  return value;
}

function readStringList(r: Reporter, name: string, key: string, value: unknown): string[] | null {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    r.keyword(name, key, 'must be an array of strings');
    return null;
  }
  const list = value as string[];
  if (list.length === 0) r.keyword(name, key, 'must list at least one option');
  if (new Set(list).size !== list.length) r.keyword(name, key, 'lists the same option twice');
  return list;
}

/** `[{const, title}]`, exactly those two keys, both strings. */
function readTitledOptions(r: Reporter, name: string, key: string, value: unknown): { consts: string[]; titles: string[] } | null {
  if (!Array.isArray(value)) {
    r.keyword(name, key, 'must be an array of {const, title} objects');
    return null;
  }
  const consts: string[] = [];
  const titles: string[] = [];
  for (const option of value as unknown[]) {
    if (
      !isPlainObject(option) ||
      typeof own(option, 'const') !== 'string' ||
      typeof own(option, 'title') !== 'string' ||
      Object.keys(option).some((k) => k !== 'const' && k !== 'title')
    ) {
      r.keyword(name, key, 'must hold only {const: string, title: string} objects');
      return null;
    }
    consts.push(option['const'] as string);
    titles.push(option['title'] as string);
  }
  if (consts.length === 0) r.keyword(name, key, 'must list at least one option');
  if (new Set(consts).size !== consts.length) r.keyword(name, key, 'lists the same const twice');
  return { consts, titles };
}

function checkRange(r: Reporter, name: string, low: number | null, high: number | null, lowKey: string, highKey: string): void {
  if (low !== null && high !== null && low > high) r.keyword(name, lowKey, `is greater than ${highKey}`);
}

// "localhost:8080/hooks", "example.com:443": a host and port that the URI grammar reads as a scheme.
const HOST_AS_SCHEME = /^(?:localhost|[a-z0-9-]+(?:\.[a-z0-9-]+)+):\d{1,5}(?:[/?#]|$)/i;

function checkDefault(r: Reporter, name: string, raw: Record<string, unknown>, shape: FieldShape, optional: boolean): string[] {
  if (!Object.hasOwn(raw, 'default')) return [];
  const value = raw['default'];
  const problem = valueProblem(shape, value);
  const phrased = problem?.replace(/^(must|is|has|holds)/, (verb) => `value ${verb}`) ?? null;
  if (phrased !== null && optional && shape.kind !== 'unknown') r.defaultWarning(name, phrased);
  else if (phrased !== null) r.keyword(name, 'default', phrased);
  else if (shape.kind === 'string' && shape.format === 'uri' && typeof value === 'string' && HOST_AS_SCHEME.test(value)) {
    r.defaultWarning(name, 'value looks like a host and port, not an absolute URI (no scheme)');
  }
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return (value as unknown[]).filter((v): v is string => typeof v === 'string');
  return [];
}

interface Read {
  readonly shape: FieldShape;
  readonly formatPassword: boolean;
  readonly optionTitles: readonly string[];
}

function readString(r: Reporter, name: string, raw: Record<string, unknown>): Read {
  if (Object.hasOwn(raw, 'oneOf')) {
    checkKeys(r, name, raw, TITLED_SINGLE_KEYS);
    const options = readTitledOptions(r, name, 'oneOf', raw['oneOf']);
    return {
      shape: options === null ? { kind: 'unknown' } : { kind: 'single-select', options: options.consts },
      formatPassword: false,
      optionTitles: options?.titles ?? [],
    };
  }
  if (Object.hasOwn(raw, 'enum')) {
    checkKeys(r, name, raw, UNTITLED_SINGLE_KEYS);
    const options = readStringList(r, name, 'enum', raw['enum']);
    let optionTitles: string[] = [];
    if (Object.hasOwn(raw, 'enumNames')) {
      const names = readStringList(r, name, 'enumNames', raw['enumNames']);
      if (names !== null && options !== null && names.length !== options.length)
        r.keyword(name, 'enumNames', 'must have one name per enum value');
      optionTitles = names ?? [];
    }
    return { shape: options === null ? { kind: 'unknown' } : { kind: 'single-select', options }, formatPassword: false, optionTitles };
  }
  checkKeys(r, name, raw, STRING_KEYS);
  const minLength = readOptionalCount(r, name, raw, 'minLength');
  const maxLength = readOptionalCount(r, name, raw, 'maxLength');
  checkRange(r, name, minLength, maxLength, 'minLength', 'maxLength');
  const format = own(raw, 'format');
  let formatPassword = false;
  if (format !== undefined && !isStringFormat(format)) {
    formatPassword = format === 'password';
    r.keyword(
      name,
      'format',
      formatPassword
        ? 'value "password" is not allowed (it marks a secret: use URL mode for secrets)'
        : 'must be one of "email", "uri", "date", "date-time"',
    );
  }
  return {
    shape: { kind: 'string', minLength, maxLength, format: isStringFormat(format) ? format : null },
    formatPassword,
    optionTitles: [],
  };
}

function readNumber(r: Reporter, name: string, raw: Record<string, unknown>, integer: boolean): Read {
  checkKeys(r, name, raw, NUMBER_KEYS);
  const minimum = readOptionalNumber(r, name, raw, 'minimum');
  const maximum = readOptionalNumber(r, name, raw, 'maximum');
  checkRange(r, name, minimum, maximum, 'minimum', 'maximum');
  return { shape: { kind: 'number', integer, minimum, maximum }, formatPassword: false, optionTitles: [] };
}

function readArray(r: Reporter, name: string, raw: Record<string, unknown>): Read {
  checkKeys(r, name, raw, MULTI_KEYS);
  const minItems = readOptionalCount(r, name, raw, 'minItems');
  const maxItems = readOptionalCount(r, name, raw, 'maxItems');
  checkRange(r, name, minItems, maxItems, 'minItems', 'maxItems');
  const items = own(raw, 'items');
  if (!isPlainObject(items)) {
    r.keyword(
      name,
      'items',
      items === undefined ? 'is required for a multi-select field' : 'must be {type:"string", enum:[...]} or {anyOf:[{const, title}]}',
    );
    return { shape: { kind: 'unknown' }, formatPassword: false, optionTitles: [] };
  }
  if (Object.hasOwn(items, 'anyOf')) {
    const extra = Object.keys(items).filter((k) => k !== 'anyOf');
    for (const key of extra) r.keyword(name, `items.${key}`, 'is not allowed next to items.anyOf');
    const options = readTitledOptions(r, name, 'items.anyOf', items['anyOf']);
    return {
      shape: options === null ? { kind: 'unknown' } : { kind: 'multi-select', options: options.consts, minItems, maxItems },
      formatPassword: false,
      optionTitles: options?.titles ?? [],
    };
  }
  if (own(items, 'type') !== 'string') {
    r.keyword(
      name,
      'items',
      items['type'] === 'object'
        ? 'must not be an object: arrays of objects are not supported'
        : 'must be {type:"string", enum:[...]} or {anyOf:[{const, title}]}',
    );
    return { shape: { kind: 'unknown' }, formatPassword: false, optionTitles: [] };
  }
  for (const key of Object.keys(items))
    if (key !== 'type' && key !== 'enum') r.keyword(name, `items.${key}`, 'is not allowed in a multi-select items schema');
  if (!Object.hasOwn(items, 'enum')) {
    r.keyword(name, 'items.enum', 'is required: a multi-select lists its options');
    return { shape: { kind: 'unknown' }, formatPassword: false, optionTitles: [] };
  }
  const options = readStringList(r, name, 'items.enum', items['enum']);
  return {
    shape: options === null ? { kind: 'unknown' } : { kind: 'multi-select', options, minItems, maxItems },
    formatPassword: false,
    optionTitles: [],
  };
}

function readField(r: Reporter, name: string, raw: unknown, optional: boolean): FieldSpec {
  if (!isPlainObject(raw)) {
    r.schema(`field ${quoteName(name)}: must be a schema object`, name);
    return {
      name,
      shape: { kind: 'unknown' },
      title: null,
      description: null,
      formatPassword: false,
      writeOnly: false,
      stringDefaults: [],
      optionTitles: [],
    };
  }
  const common = readCommon(r, name, raw);
  const writeOnly = own(raw, 'writeOnly') === true;
  const type = own(raw, 'type');
  let read: Read;
  switch (type) {
    case 'string':
      read = readString(r, name, raw);
      break;
    case 'number':
    case 'integer':
      read = readNumber(r, name, raw, type === 'integer');
      break;
    case 'boolean':
      checkKeys(r, name, raw, BOOLEAN_KEYS);
      read = { shape: { kind: 'boolean' }, formatPassword: false, optionTitles: [] };
      break;
    case 'array':
      read = readArray(r, name, raw);
      break;
    default: {
      const problem =
        type === undefined
          ? 'is required (string, number, integer, boolean or array)'
          : type === 'object'
            ? 'must not be "object": nested objects are not supported'
            : 'must be "string", "number", "integer", "boolean" or "array"';
      r.keyword(name, 'type', problem);
      for (const key of Object.keys(raw))
        if (!['type', 'title', 'description', 'default'].includes(key)) r.keyword(name, key, unknownKeywordProblem(key));
      read = { shape: { kind: 'unknown' }, formatPassword: own(raw, 'format') === 'password', optionTitles: [] };
    }
  }
  const stringDefaults = checkDefault(r, name, raw, read.shape, optional);
  return {
    name,
    shape: read.shape,
    title: common.title,
    description: common.description,
    formatPassword: read.formatPassword,
    writeOnly,
    stringDefaults,
    optionTitles: read.optionTitles,
  };
}

/** Reads a `requestedSchema` against the spec 2025-11-25 allowlist. Never throws on JSON input. */
export function readSchema(schema: unknown): SchemaReading {
  const r = new Reporter();
  if (!isPlainObject(schema)) {
    r.schema('requestedSchema must be an object schema ({type: "object", properties: {...}})');
    return { title: null, description: null, fields: [], required: [], findings: r.findings };
  }
  for (const key of Object.keys(schema)) {
    if (TOP_LEVEL_KEYS.has(key)) continue;
    r.schema(`requestedSchema: keyword ${quoteName(key)} ${unknownKeywordProblem(key)}`);
  }
  if (schema['type'] !== 'object') r.schema('requestedSchema: keyword "type" must be "object"');
  const $schema = own(schema, '$schema');
  if ($schema !== undefined && typeof $schema !== 'string') r.schema('requestedSchema: keyword "$schema" must be a string');
  for (const key of ['title', 'description'] as const) {
    const value = own(schema, key);
    if (value !== undefined && typeof value !== 'string') r.schema(`requestedSchema: keyword "${key}" must be a string`);
  }

  const properties = own(schema, 'properties');
  const rawRequiredNames = own(schema, 'required');
  const requiredNames = new Set(
    Array.isArray(rawRequiredNames) ? (rawRequiredNames as unknown[]).filter((v): v is string => typeof v === 'string') : [],
  );
  const fields: FieldSpec[] = [];
  if (!isPlainObject(properties)) {
    r.schema('requestedSchema: keyword "properties" must be an object of fields');
  } else {
    // A field is optional when the schema says which fields are required and this one is not (schema
    // generators such as pydantic and zod always emit \`required\`); without \`required\`, nothing is
    // known about the author's intent and an invalid default stays an error.
    const declared = Array.isArray(rawRequiredNames);
    const entries = Object.entries(properties);
    // No person fills in hundreds of fields; a form that large is a way to make the audit slow.
    if (entries.length > MAX_FIELDS)
      r.schema(
        `requestedSchema: ${entries.length} properties is more than the ${MAX_FIELDS} a form may have; only the ` +
          `first ${MAX_FIELDS} were read`,
      );
    for (const [name, raw] of entries.slice(0, MAX_FIELDS)) fields.push(readField(r, name, raw, declared && !requiredNames.has(name)));
  }

  const required: string[] = [];
  const rawRequired = own(schema, 'required');
  if (rawRequired !== undefined) {
    if (!Array.isArray(rawRequired) || !rawRequired.every((v) => typeof v === 'string')) {
      r.schema('requestedSchema: keyword "required" must be an array of field names');
    } else {
      const seen = new Set<string>();
      for (const name of rawRequired as string[]) {
        if (seen.has(name)) {
          r.schema(`requestedSchema: "required" names field ${quoteName(name)} twice`, name);
          continue;
        }
        seen.add(name);
        if (!isPlainObject(properties) || !Object.hasOwn(properties, name)) {
          r.schema(`requestedSchema: "required" names field ${quoteName(name)}, which is not a property`, name);
          continue;
        }
        required.push(name);
      }
    }
  }
  const title = own(schema, 'title');
  const description = own(schema, 'description');
  return {
    title: typeof title === 'string' ? title : null,
    description: typeof description === 'string' ? description : null,
    fields,
    required,
    findings: r.findings,
  };
}
