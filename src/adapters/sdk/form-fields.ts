/**
 * A form-mode `requestedSchema` read into the fields a consent UI draws: label, help text,
 * options with their titles, the default to pre-fill, and the shape a value must fit. Pure; the
 * allowlist reading and the value check are the form audit's own (`readSchema`, `valueProblem`),
 * so a value the UI accepts is a value the guard's outgoing check accepts.
 */
import { readSchema, isPlainObject } from '../../form/schema.js';
import { valueProblem, type FieldShape } from '../../form/shape.js';
import type { FieldClass, FormAudit } from '../../form/types.js';

/** One answer value, as the spec's form subset allows it. */
export type FormValue = string | number | boolean | string[];

/** The `content` of an accepted form answer. */
export type FormContent = Record<string, FormValue>;

/** One choice of a single- or multi-select field. */
export interface FormOption {
  readonly value: string;
  /** `oneOf[].title`, `items.anyOf[].title` or legacy `enumNames`; `null` when the schema gives none. */
  readonly title: string | null;
}

/** A form field as a UI shows it. Every key is always present. */
export interface FormField {
  readonly name: string;
  readonly title: string | null;
  readonly description: string | null;
  readonly required: boolean;
  /** What a value must look like (kind and limits). `unknown` only for a schema the guard would block. */
  readonly shape: FieldShape;
  /** The choices of a select field, in the schema's order; empty for other kinds. */
  readonly options: readonly FormOption[];
  /** The schema's `default` when it fits the field, to pre-fill; `null` otherwise. */
  readonly default: FormValue | null;
  /** What the audit judged the field to ask for (`ordinary` when it has no report on it). */
  readonly class: FieldClass;
}

/**
 * The fields of a requested schema, in the schema's order.
 * @example formFields({ type: 'object', properties: { n: { type: 'integer', default: 3 } } })[0].default === 3
 */
export function formFields(requestedSchema: unknown, audit?: FormAudit): FormField[] {
  const reading = readSchema(requestedSchema);
  const properties = isPlainObject(requestedSchema) && isPlainObject(requestedSchema['properties']) ? requestedSchema['properties'] : {};
  const classes = new Map<string, FieldClass>();
  for (const report of audit?.fields ?? []) classes.set(report.name, report.class);
  return reading.fields.map((spec) => {
    const raw = Object.hasOwn(properties, spec.name) ? properties[spec.name] : undefined;
    const rawDefault = isPlainObject(raw) && Object.hasOwn(raw, 'default') ? raw['default'] : undefined;
    return {
      name: spec.name,
      title: spec.title,
      description: spec.description,
      required: reading.required.includes(spec.name),
      shape: spec.shape,
      options: optionsOf(spec.shape, spec.optionTitles),
      default:
        rawDefault !== undefined && valueProblem(spec.shape, rawDefault) === null && spec.shape.kind !== 'unknown'
          ? copyValue(rawDefault as FormValue)
          : null,
      class: classes.get(spec.name) ?? 'ordinary',
    };
  });
}

/** The defaults of every field that has one: the answer a user gets by keeping everything. */
export function formDefaults(fields: readonly FormField[]): FormContent {
  const content: FormContent = {};
  for (const field of fields) if (field.default !== null) content[field.name] = copyValue(field.default);
  return content;
}

/**
 * Why `value` does not fit `field`, or `null` when it does. Names the rule, never quotes the value.
 * @example fieldProblem(sizeField, 11) === 'is above maximum 10'
 */
export function fieldProblem(field: FormField, value: unknown): string | null {
  if (field.shape.kind === 'unknown') return 'has a type this form cannot collect';
  return valueProblem(field.shape, value);
}

export type ParsedInput = { readonly ok: true; readonly value: FormValue } | { readonly ok: false; readonly problem: string };

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const YES = new Set(['y', 'yes', 'true', '1']);
const NO = new Set(['n', 'no', 'false', '0']);

/**
 * Reads what a user typed for a field in a text UI, then checks it against the field. Selects take
 * an option's value, its number in the list (1-based) or its title; a multi-select takes a
 * comma-separated list, or `-` for none. Booleans take y/yes/true/1 and n/no/false/0.
 */
export function parseFieldInput(field: FormField, text: string): ParsedInput {
  const value = readInput(field, text);
  if (!value.ok) return value;
  const problem = fieldProblem(field, value.value);
  return problem === null ? value : { ok: false, problem };
}

function readInput(field: FormField, text: string): ParsedInput {
  const shape = field.shape;
  switch (shape.kind) {
    case 'string':
      return { ok: true, value: text };
    case 'number': {
      const trimmed = text.trim();
      if (!NUMBER.test(trimmed)) return { ok: false, problem: shape.integer ? 'must be a whole number' : 'must be a number' };
      return { ok: true, value: Number(trimmed) };
    }
    case 'boolean': {
      const word = text.trim().toLowerCase();
      if (YES.has(word)) return { ok: true, value: true };
      if (NO.has(word)) return { ok: true, value: false };
      return { ok: false, problem: 'must be yes or no' };
    }
    case 'single-select': {
      const option = pickOption(field.options, text.trim());
      return option === null ? { ok: false, problem: 'is not one of the listed options' } : { ok: true, value: option };
    }
    case 'multi-select': {
      const trimmed = text.trim();
      if (trimmed === '-') return { ok: true, value: [] };
      const picked: string[] = [];
      for (const part of trimmed.split(',')) {
        const option = pickOption(field.options, part.trim());
        if (option === null) return { ok: false, problem: 'lists something that is not one of the options' };
        picked.push(option);
      }
      return { ok: true, value: picked };
    }
    case 'unknown':
      return { ok: false, problem: 'has a type this form cannot collect' };
  }
}

// The exact value first: an option whose value is "2" must not be shadowed by the second option.
function pickOption(options: readonly FormOption[], text: string): string | null {
  const byValue = options.find((o) => o.value === text);
  if (byValue !== undefined) return byValue.value;
  if (/^\d+$/.test(text)) {
    const byIndex = options[Number(text) - 1];
    if (byIndex !== undefined) return byIndex.value;
  }
  const lower = text.toLowerCase();
  const byTitle = options.filter((o) => o.title !== null && o.title.toLowerCase() === lower);
  return byTitle.length === 1 ? byTitle[0]!.value : null;
}

function optionsOf(shape: FieldShape, titles: readonly string[]): FormOption[] {
  if (shape.kind !== 'single-select' && shape.kind !== 'multi-select') return [];
  const titled = titles.length === shape.options.length;
  return shape.options.map((value, i) => ({ value, title: titled ? titles[i]! : null }));
}

function copyValue(value: FormValue): FormValue {
  return Array.isArray(value) ? [...value] : value;
}
