/**
 * The shapes a form field may take (spec 2025-11-25 `PrimitiveSchemaDefinition`) and the check of
 * one value against a shape, shared by the schema audit (defaults) and the content check (answers).
 */

import { matchesFormat, type StringFormat } from './formats.js';

export type FieldShape =
  | { readonly kind: 'string'; readonly minLength: number | null; readonly maxLength: number | null; readonly format: StringFormat | null }
  | { readonly kind: 'number'; readonly integer: boolean; readonly minimum: number | null; readonly maximum: number | null }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'single-select'; readonly options: readonly string[] }
  | {
      readonly kind: 'multi-select';
      readonly options: readonly string[];
      readonly minItems: number | null;
      readonly maxItems: number | null;
    }
  /** Not one of the allowed shapes: the audit has already reported why. */
  | { readonly kind: 'unknown' };

/** True for shapes whose answer is typed in freely (and so can carry a secret). */
export function isFreeEntry(shape: FieldShape): boolean {
  return shape.kind === 'string' || shape.kind === 'number' || shape.kind === 'unknown';
}

/** Length in Unicode code points, as JSON Schema counts it. */
export function codePointLength(value: string): number {
  let n = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Why `value` does not fit `shape`, or `null` when it does. The answer never quotes the value
 * (it may be a secret); it names the rule.
 */
export function valueProblem(shape: FieldShape, value: unknown): string | null {
  switch (shape.kind) {
    case 'unknown':
      return null;
    case 'string': {
      if (typeof value !== 'string') return `must be a string, not ${describeType(value)}`;
      const length = codePointLength(value);
      if (shape.minLength !== null && length < shape.minLength) return `is shorter than minLength ${shape.minLength}`;
      if (shape.maxLength !== null && length > shape.maxLength) return `is longer than maxLength ${shape.maxLength}`;
      if (shape.format !== null && !matchesFormat(shape.format, value)) return `is not a valid ${shape.format}`;
      return null;
    }
    case 'number': {
      if (typeof value !== 'number') return `must be a number, not ${describeType(value)}`;
      if (!Number.isFinite(value)) return 'must be a finite number';
      if (shape.integer && !Number.isInteger(value)) return 'must be an integer';
      if (shape.minimum !== null && value < shape.minimum) return `is below minimum ${shape.minimum}`;
      if (shape.maximum !== null && value > shape.maximum) return `is above maximum ${shape.maximum}`;
      return null;
    }
    case 'boolean':
      return typeof value === 'boolean' ? null : `must be a boolean, not ${describeType(value)}`;
    case 'single-select':
      if (typeof value !== 'string') return `must be a string, not ${describeType(value)}`;
      return shape.options.includes(value) ? null : 'is not one of the allowed options';
    case 'multi-select': {
      if (!Array.isArray(value)) return `must be an array of strings, not ${describeType(value)}`;
      const seen = new Set<string>();
      for (const item of value as unknown[]) {
        if (typeof item !== 'string') return 'must hold only strings';
        if (!shape.options.includes(item)) return 'holds a value that is not one of the allowed options';
        if (seen.has(item)) return 'holds the same option twice';
        seen.add(item);
      }
      if (shape.minItems !== null && value.length < shape.minItems) return `has fewer than minItems ${shape.minItems} items`;
      if (shape.maxItems !== null && value.length > shape.maxItems) return `has more than maxItems ${shape.maxItems} items`;
      return null;
    }
  }
}
