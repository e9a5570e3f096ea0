/**
 * Narrow exceptions to the sensitive-field check (`servers.<key>.form.allow`): a field by name, a
 * whole schema by digest, or a field within one schema. An exception only changes how a sensitive
 * field is judged; it never excuses a schema outside the spec subset, and the answer the user
 * sends is still scanned for secret-shaped values.
 */
import type { Policy } from '../policy/policy.js';
import { canonicalDigest } from '../protocol/digest.js';
import { GuardCode } from '../protocol/errors.js';
import { verdictOf, type ExceptionUse, type Finding } from '../protocol/verdict.js';
import type { FieldReport, FormAudit } from './types.js';

/** `sha256:<hex>` of a requestedSchema (RFC 8785 canonical JSON), as `form.allow[].schema` names it. */
export function schemaDigest(schema: unknown): string | null {
  try {
    return `sha256:${canonicalDigest(schema)}`;
  } catch {
    return null;
  }
}

function isSensitive(report: FieldReport, policy: Policy): boolean {
  return report.class === 'credential' || report.class === 'payment' || (policy.form.blockPersonal && report.class === 'personal');
}

/**
 * Adds the schema digest when a field is sensitive, and applies the server's allow rules: an
 * allowed field is reported `ordinary` (its reasons keep what it looked like, plus `allowed:<class>`)
 * and its `E_SENSITIVE_FIELD` finding is dropped. Costs nothing when no field is sensitive.
 */
export function applyFormExceptions(audit: FormAudit, schema: unknown, policy: Policy): FormAudit {
  if (!audit.fields.some((f) => isSensitive(f, policy))) return audit;
  const digest = schemaDigest(schema);
  const rules = Array.isArray(policy.form.allow) ? policy.form.allow : [];
  if (rules.length === 0) return digest === null ? audit : { ...audit, schemaDigest: digest };
  const uses: ExceptionUse[] = [];
  const allowed = new Set<string>();
  for (const field of audit.fields) {
    if (!isSensitive(field, policy)) continue;
    const rule = rules.find((r) => (r.field === undefined || r.field === field.name) && (r.schema === undefined || r.schema === digest));
    if (rule === undefined) continue;
    allowed.add(field.name);
    uses.push({
      type: 'exception.used',
      kind: rule.field === undefined ? 'form-schema' : 'form-field',
      target: rule.field ?? rule.schema!,
      reason: rule.reason,
      findings: [GuardCode.sensitiveField],
    });
  }
  if (uses.length === 0) return digest === null ? audit : { ...audit, schemaDigest: digest };
  const fields = audit.fields.map((f) =>
    allowed.has(f.name) ? { name: f.name, class: 'ordinary' as const, reasons: [...f.reasons, `allowed:${f.class}`] } : f,
  );
  const findings: Finding[] = audit.findings.filter(
    (f) => !(f.code === GuardCode.sensitiveField && f.field !== undefined && allowed.has(f.field)),
  );
  return { verdict: verdictOf(findings), fields, findings, ...(digest === null ? {} : { schemaDigest: digest }), exceptions: uses };
}
