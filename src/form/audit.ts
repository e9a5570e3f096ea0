/**
 * The form-mode audit: the schema allowlist plus the sensitive-field classifier, turned into
 * findings and a verdict under the policy's form settings.
 */

import type { Policy } from '../policy/policy.js';
import { GuardCode } from '../protocol/errors.js';
import { verdictOf, type Finding } from '../protocol/verdict.js';
import { classifyFields } from './classify.js';
import { applyFormExceptions } from './exceptions.js';
import { containsUrl } from './links.js';
import { exceedsScanBound, MAX_SCANNED_TEXT } from './normalize.js';
import { isPlainObject, quoteName, readSchema, type FieldSpec } from './schema.js';
import type { FieldClass, FieldReport, FormAudit } from './types.js';

/** Code of the warning for a personal-data field (email, phone, address, identity numbers...). */
export const PERSONAL_FIELD = 'W_PERSONAL_FIELD';
/** Code of the warning for a URL in a form's message, titles, descriptions, option titles or defaults. */
export const URL_IN_FORM = 'W_URL_IN_FORM';

const PARAMS_KEYS = new Set(['mode', 'message', 'requestedSchema', '_meta', 'task']);

interface Unpacked {
  readonly schema: unknown;
  readonly message: string | null;
  readonly findings: readonly Finding[];
}

function invalid(message: string): Finding {
  return { code: GuardCode.invalidParams, severity: 'error', message };
}

/**
 * `elicitation/create` params carry `message`, `requestedSchema` or `mode`; anything else is
 * taken for a bare `requestedSchema`.
 */
function unpack(params: unknown): Unpacked {
  if (!isPlainObject(params)) return { schema: undefined, message: null, findings: [invalid('elicitation params must be an object')] };
  const isParams = Object.hasOwn(params, 'requestedSchema') || Object.hasOwn(params, 'message') || Object.hasOwn(params, 'mode');
  if (!isParams) return { schema: params, message: null, findings: [] };
  const findings: Finding[] = [];
  const mode = params['mode'];
  if (mode !== undefined && mode !== 'form')
    findings.push(invalid('elicitation params: "mode" must be "form" (or absent) for a form audit'));
  const message = params['message'];
  if (typeof message !== 'string') findings.push(invalid('elicitation params: "message" is required and must be a string'));
  if (!Object.hasOwn(params, 'requestedSchema')) findings.push(invalid('elicitation params: "requestedSchema" is required in form mode'));
  for (const key of Object.keys(params))
    if (!PARAMS_KEYS.has(key)) findings.push(invalid(`elicitation params: key ${quoteName(key)} is not part of a form-mode request`));
  return {
    schema: Object.hasOwn(params, 'requestedSchema') ? params['requestedSchema'] : undefined,
    message: typeof message === 'string' ? message : null,
    findings,
  };
}

const CLASS_WORDS: Readonly<Record<Exclude<FieldClass, 'ordinary'>, string>> = {
  credential: 'a credential',
  payment: 'payment data',
  personal: 'personal data',
};

function sensitiveFinding(report: FieldReport, policy: Policy): Finding | null {
  const why = report.reasons.length > 0 ? ` (${report.reasons.join(', ')})` : '';
  const field = quoteName(report.name);
  switch (report.class) {
    case 'ordinary':
      return null;
    case 'credential':
    case 'payment': {
      const severity = policy.form.onSensitive === 'block' ? 'error' : 'warning';
      const message =
        `field ${field} asks for ${CLASS_WORDS[report.class]}${why}; form mode must not collect it (spec ` +
        `2025-11-25): the server should use URL mode`;
      return { code: GuardCode.sensitiveField, severity, message, field: report.name };
    }
    case 'personal': {
      if (policy.form.blockPersonal) {
        const severity = policy.form.onSensitive === 'block' ? 'error' : 'warning';
        return {
          code: GuardCode.sensitiveField,
          severity,
          message: `field ${field} asks for personal data${why}; the policy blocks personal data in forms`,
          field: report.name,
        };
      }
      return {
        code: PERSONAL_FIELD,
        severity: 'warning',
        message: `field ${field} asks for personal data${why}; review before sending`,
        field: report.name,
      };
    }
  }
}

function urlFinding(spec: FieldSpec): Finding | null {
  const places: string[] = [];
  if (spec.title !== null && containsUrl(spec.title)) places.push('title');
  if (spec.description !== null && containsUrl(spec.description)) places.push('description');
  if (spec.optionTitles.some(containsUrl)) places.push('option titles');
  if (spec.stringDefaults.some(containsUrl)) places.push('default');
  if (places.length === 0) return null;
  return {
    code: URL_IN_FORM,
    severity: 'warning',
    message: `field ${quoteName(spec.name)}: its ${places.join(
      ' and ',
    )} hold a URL; form fields should not carry links (show it as plain text)`,
    field: spec.name,
  };
}

/** Texts too long to read whole fail closed: what is past the bound could hide anything. */
function overlongFindings(formTexts: readonly (string | null)[], specs: readonly FieldSpec[]): Finding[] {
  const findings: Finding[] = [];
  const tooLong = `longer than ${MAX_SCANNED_TEXT} visible characters, too long to read whole`;
  if (formTexts.some((text) => typeof text === 'string' && exceedsScanBound(text))) {
    findings.push({
      code: GuardCode.invalidParams,
      severity: 'error',
      message: `the request message or the form's title or description is ${tooLong}`,
    });
  }
  for (const spec of specs) {
    const places = [
      exceedsScanBound(spec.name) ? 'name' : null,
      spec.title !== null && exceedsScanBound(spec.title) ? 'title' : null,
      spec.description !== null && exceedsScanBound(spec.description) ? 'description' : null,
      spec.optionTitles.some(exceedsScanBound) ? 'option titles' : null,
    ].filter((p) => p !== null);
    if (places.length > 0)
      findings.push({
        code: GuardCode.schemaNotAllowed,
        severity: 'error',
        message: `its ${places.join(' and ')} is ${tooLong}`,
        field: spec.name,
      });
  }
  return findings;
}

function audit(params: unknown, policy: Policy): FormAudit {
  const unpacked = unpack(params);
  if (unpacked.schema === undefined && unpacked.findings.length > 0) {
    const findings = [...unpacked.findings];
    return { verdict: verdictOf(findings), fields: [], findings };
  }
  const reading = readSchema(unpacked.schema);
  const fields = classifyFields(reading.fields, { message: unpacked.message, title: reading.title, description: reading.description });
  const findings: Finding[] = [
    ...unpacked.findings,
    ...reading.findings,
    ...overlongFindings([unpacked.message, reading.title, reading.description], reading.fields),
  ];
  for (const report of fields) {
    const finding = sensitiveFinding(report, policy);
    if (finding !== null) findings.push(finding);
  }
  if (unpacked.message !== null && containsUrl(unpacked.message)) {
    findings.push({
      code: URL_IN_FORM,
      severity: 'warning',
      message: 'the request message holds a URL; form requests should not carry links (show it as plain text)',
    });
  }
  for (const spec of reading.fields) {
    const finding = urlFinding(spec);
    if (finding !== null) findings.push(finding);
  }
  return applyFormExceptions({ verdict: verdictOf(findings), fields, findings }, unpacked.schema, policy);
}

/**
 * Audits form-mode `elicitation/create` params (`{message, requestedSchema, mode?}`) or a bare
 * `requestedSchema` under `policy`. Never throws: an input it cannot judge blocks.
 *
 * @example
 *   auditForm({ message: 'Sign in', requestedSchema: { type: 'object', properties: { password: { type: 'string' } } } },
 *     defaultPolicy.base)
 *   // → { verdict: 'block', fields: [{ name: 'password', class: 'credential', reasons: ['name:password'] }], findings:
 *     [E_SENSITIVE_FIELD …] }
 */
export function auditForm(params: unknown, policy: Policy): FormAudit {
  try {
    return audit(params, policy);
  } catch {
    const findings: Finding[] = [
      { code: GuardCode.internal, severity: 'error', message: 'the form could not be audited (internal error); blocked' },
    ];
    return { verdict: 'block', fields: [], findings };
  }
}
