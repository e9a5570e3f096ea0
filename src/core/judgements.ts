/**
 * The checkers' word on what an elicitation asks and what an answer carries, in the terms the
 * guard decides with: what to refuse (with which code, reason and data), what to let through.
 * Pure functions of the message and the policy; no state.
 */
import { auditForm, checkContent, type ContentCheck } from '../form/index.js';
import type { FieldReport, FormAudit } from '../form/types.js';
import type { Policy } from '../policy/policy.js';
import { GuardCode } from '../protocol/errors.js';
import { isRecord } from '../protocol/jsonrpc.js';
import { GuardMetaKey } from '../protocol/wire.js';
import { findSecret } from '../secrets/index.js';
import { analyzeUrl } from '../url/index.js';
import type { UrlAnalysis } from '../url/types.js';
import type { RequirementEntry } from '../wire/codec.js';

export interface Refusal {
  readonly code: GuardCode;
  readonly reason: string;
  readonly findings: readonly string[];
  readonly data?: Record<string, unknown>;
}

export interface FormJudgement {
  readonly audit: FormAudit;
  readonly codes: readonly string[];
  /** Fields the policy counts as sensitive (credential, payment, and personal when it blocks those). */
  readonly sensitive: readonly FieldReport[];
  /** The sensitive fields are refused (`form.onSensitive: "block"`). */
  readonly blocked: boolean;
  readonly refusal: Refusal | null;
}

/** A form-mode elicitation: audited, and refused when it asks for sensitive data or leaves the spec's subset. */
export function judgeForm(params: Record<string, unknown>, policy: Policy): FormJudgement {
  const audit = auditForm(params, policy);
  const sensitive = audit.fields.filter(
    (f) => f.class === 'credential' || f.class === 'payment' || (policy.form.blockPersonal && f.class === 'personal'),
  );
  const codes = audit.findings.map((f) => f.code);
  const blocked = sensitive.length > 0 && policy.form.onSensitive === 'block';
  let refusal: Refusal | null = null;
  if (blocked) {
    const names = sensitive.map((f) => `${f.name} (${f.class})`).join(', ');
    refusal = {
      code: GuardCode.sensitiveField,
      reason: `form-mode elicitation asks for sensitive data: ${names}. Servers must use URL mode for credentials and payment data.`,
      findings: codes,
      data: { fields: sensitive.map((f) => ({ name: f.name, class: f.class })) },
    };
  } else if (audit.verdict === 'block') {
    const problems = audit.findings.filter((f) => f.severity === 'error');
    const detail = problems.map((f) => (f.field === undefined ? f.message : `${f.field}: ${f.message}`)).join('; ');
    const byField = new Map<string, string[]>();
    for (const f of problems) if (f.field !== undefined) byField.set(f.field, [...(byField.get(f.field) ?? []), f.message]);
    refusal = {
      code: GuardCode.schemaNotAllowed,
      reason: `requestedSchema is outside the spec 2025-11-25 form subset: ${detail}`,
      findings: codes,
      data: { fields: [...byField].map(([name, reasons]) => ({ name, reasons })) },
    };
  }
  return { audit, codes, sensitive, blocked, refusal };
}

/** A URL-mode elicitation's URL: analysed, and refused when the analysis blocks it. */
export function judgeUrl(
  url: string,
  policy: Policy,
): { readonly analysis: UrlAnalysis; readonly codes: readonly string[]; readonly refusal: Refusal | null } {
  const analysis = analyzeUrl(url, policy);
  const codes = analysis.findings.map((f) => f.code);
  if (analysis.verdict !== 'block') return { analysis, codes, refusal: null };
  const reasons = analysis.findings
    .filter((f) => f.severity === 'error')
    .map((f) => f.message)
    .join('; ');
  return {
    analysis,
    codes,
    refusal: {
      code: GuardCode.urlBlocked,
      reason: `the elicitation URL was blocked: ${reasons}`,
      findings: codes,
      data: { findings: codes },
    },
  };
}

export interface KeptEntry {
  /** The entry as the host gets it: the guard's analysis in `_meta`. */
  readonly entry: Record<string, unknown>;
  readonly elicitationId: string;
  readonly url: string;
  readonly message: string;
  readonly analysis: UrlAnalysis;
}

/** The entries of a URL-elicitation requirement, each judged like one URL elicitation. */
export function judgeRequirement(
  entries: readonly RequirementEntry[],
  policy: Policy,
): { readonly kept: KeptEntry[]; readonly findings: string[]; readonly analyses: UrlAnalysis[] } {
  const kept: KeptEntry[] = [];
  const findings: string[] = [];
  const analyses: UrlAnalysis[] = [];
  for (const read of entries) {
    if (!read.ok) {
      findings.push(GuardCode.invalidParams);
      continue;
    }
    const analysis = analyzeUrl(read.url, policy);
    analyses.push(analysis);
    if (analysis.verdict === 'block') {
      for (const f of analysis.findings) if (f.severity === 'error') findings.push(f.code);
      continue;
    }
    const meta = { ...(isRecord(read.entry._meta) ? read.entry._meta : {}), [GuardMetaKey.urlAnalysis]: analysis };
    kept.push({ entry: { ...read.entry, _meta: meta }, elicitationId: read.elicitationId, url: read.url, message: read.message, analysis });
  }
  return { kept, findings, analyses };
}

/** A withheld answer: the code, the fields (never their values) and the finding codes. */
export interface Withheld {
  readonly code: GuardCode;
  readonly fields: readonly string[];
  readonly findings: readonly string[];
}

/** An accepted form answer, checked against the schema it answers; `null` when it may go. */
export function judgeAnswer(content: unknown, requestedSchema: unknown): Withheld | null {
  return withheldOf(checkContent(content, requestedSchema));
}

/** What a content check withholds; `null` when the answer may go. */
export function withheldOf(check: ContentCheck): Withheld | null {
  if (check.ok) return null;
  const findings = check.findings.map((f) => f.code);
  const code = findings.includes(GuardCode.secretInContent) ? GuardCode.secretInContent : GuardCode.contentInvalid;
  const fields = [...new Set(check.findings.flatMap((f) => (f.field === undefined ? [] : [f.field])))];
  return { code, fields, findings };
}

/**
 * An accepted answer the guard cannot tie to a pending elicitation (its record was forgotten):
 * there is no schema to check against, but no secret-shaped value leaves with it.
 */
export function judgeUnmatchedAnswer(content: unknown): Withheld | null {
  if (!isRecord(content)) return null;
  const fields: string[] = [];
  for (const [name, value] of Object.entries(content)) {
    const strings =
      typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
    if (strings.some((s) => findSecret(s) !== null)) fields.push(name);
  }
  return fields.length === 0 ? null : { code: GuardCode.secretInContent, fields, findings: fields.map(() => GuardCode.secretInContent) };
}
