/**
 * The check of an accepted form answer before it goes back to the server (spec: clients SHOULD
 * validate responses against the schema): every field against its shape, `required`, unknown
 * keys, and every string scanned for secrets (key and token formats, connection strings, seed
 * phrases, card numbers, long random strings in plain text fields).
 */

import { GuardCode } from '../protocol/errors.js';
import type { Finding } from '../protocol/verdict.js';
import { scanValue } from '../secrets/index.js';
import { isPlainObject, quoteName, readSchema } from './schema.js';
import { valueProblem, type FieldShape } from './shape.js';
import type { ContentCheck } from './types.js';

function invalid(message: string, field?: string): Finding {
  return field === undefined
    ? { code: GuardCode.contentInvalid, severity: 'error', message }
    : { code: GuardCode.contentInvalid, severity: 'error', message, field };
}

/**
 * Every string of the value scanned for secrets (`scanValue`): known key and token formats,
 * connection strings with a password, seed phrases, card numbers; and, in a free-text field that
 * asks for nothing shaped (no format, no options), long random strings, which is what a prefixless
 * cloud secret or a session id looks like.
 */
function secretFindings(name: string, value: unknown, shape: FieldShape | undefined): Finding[] {
  const strings =
    typeof value === 'string'
      ? [value]
      : Array.isArray(value)
        ? (value as unknown[]).filter((v): v is string => typeof v === 'string')
        : [];
  const entropy = shape !== undefined && shape.kind === 'string' && shape.format === null;
  for (const s of strings) {
    const match = scanValue(s, { entropy });
    if (match !== null) {
      return [
        {
          code: GuardCode.secretInContent,
          severity: 'error',
          message:
            `field ${quoteName(name)} holds a value shaped like a secret (${match.kind}, ${match.rule}); secrets must ` +
            `not travel in form mode`,
          field: name,
        },
      ];
    }
  }
  return [];
}

/** A requested schema may be given bare or inside `elicitation/create` params. */
function schemaOf(input: unknown): unknown {
  return isPlainObject(input) && Object.hasOwn(input, 'requestedSchema') ? input['requestedSchema'] : input;
}

function check(content: unknown, requestedSchema: unknown): ContentCheck {
  if (!isPlainObject(content)) {
    const findings = [invalid('the accepted content must be an object of field values')];
    return { ok: false, findings };
  }
  const reading = readSchema(schemaOf(requestedSchema));
  const findings: Finding[] = [];
  if (reading.findings.some((f) => f.severity === 'error'))
    findings.push(invalid('the requested schema is not an allowed form schema; the answer cannot be checked against it'));

  const shapes = new Map<string, FieldShape>();
  for (const field of reading.fields) shapes.set(field.name, field.shape);

  for (const name of reading.required) {
    if (!Object.hasOwn(content, name)) findings.push(invalid(`required field ${quoteName(name)} is missing`, name));
  }
  for (const [name, value] of Object.entries(content)) {
    const shape = shapes.get(name);
    if (shape === undefined) findings.push(invalid(`field ${quoteName(name)} is not in the requested schema`, name));
    else {
      const problem = valueProblem(shape, value);
      if (problem !== null) findings.push(invalid(`field ${quoteName(name)} ${problem}`, name));
    }
    findings.push(...secretFindings(name, value, shape));
  }
  return { ok: findings.length === 0, findings };
}

/** An answer that passes: shared, never changed. */
const PASSED: ContentCheck = Object.freeze({ ok: true, findings: Object.freeze([]) as readonly Finding[] });

/** The check of one answer against a schema read once (what `compileContentCheck` returns). */
export type CompiledContentCheck = (content: unknown) => ContentCheck;

/**
 * The check `checkContent(content, requestedSchema)` makes, with the schema read once: the same
 * findings, in the same order, for every answer. For a schema that does not change afterwards (the
 * guard's own JSON copy of a form it judged); each answer then costs one pass over its own fields.
 * Never throws, like `checkContent`.
 *
 * @example
 *   const check = compileContentCheck({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] });
 *   check({ n: 2 }) // → { ok: true, findings: [] }
 */
export function compileContentCheck(requestedSchema: unknown): CompiledContentCheck {
  let reading: ReturnType<typeof readSchema>;
  try {
    reading = readSchema(schemaOf(requestedSchema));
  } catch {
    return (content) => checkContent(content, requestedSchema);
  }
  const broken = reading.findings.some((f) => f.severity === 'error');
  const required = reading.required;
  const shapes = new Map<string, FieldShape>();
  for (const field of reading.fields) shapes.set(field.name, field.shape);
  const checkCompiled = (content: unknown): ContentCheck => {
    if (!isPlainObject(content)) return { ok: false, findings: [invalid('the accepted content must be an object of field values')] };
    let findings: Finding[] | null = null;
    if (broken)
      (findings ??= []).push(invalid('the requested schema is not an allowed form schema; the answer cannot be checked against it'));
    for (const name of required) {
      if (!Object.hasOwn(content, name)) (findings ??= []).push(invalid(`required field ${quoteName(name)} is missing`, name));
    }
    for (const name of Object.keys(content)) {
      const value = content[name];
      const shape = shapes.get(name);
      if (shape === undefined) (findings ??= []).push(invalid(`field ${quoteName(name)} is not in the requested schema`, name));
      else {
        const problem = valueProblem(shape, value);
        if (problem !== null) (findings ??= []).push(invalid(`field ${quoteName(name)} ${problem}`, name));
      }
      if (typeof value === 'string' || Array.isArray(value)) {
        const secret = secretFindings(name, value, shape);
        if (secret.length > 0) (findings ??= []).push(...secret);
      }
    }
    return findings === null ? PASSED : { ok: false, findings };
  };
  return (content) => {
    try {
      return checkCompiled(content);
    } catch {
      return checkContent(content, requestedSchema);
    }
  };
}

/**
 * Checks an accepted form answer against the requested schema. Findings name fields, never
 * values. Never throws: an answer it cannot judge is not ok.
 *
 * @example
 *   checkContent({ email: 'a@b.co' }, { type: 'object', properties: { email: { type: 'string', format: 'email' } } })
 *   // → { ok: true, findings: [] }
 */
export function checkContent(content: unknown, requestedSchema: unknown): ContentCheck {
  try {
    return check(content, requestedSchema);
  } catch {
    return {
      ok: false,
      findings: [{ code: GuardCode.internal, severity: 'error', message: 'the answer could not be checked (internal error)' }],
    };
  }
}
