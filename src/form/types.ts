import type { ExceptionUse, Finding, Verdict } from '../protocol/verdict.js';

/** What a form field asks for. `credential` and `payment` are never allowed in form mode. */
export type FieldClass = 'credential' | 'payment' | 'personal' | 'ordinary';

export interface FieldReport {
  readonly name: string;
  readonly class: FieldClass;
  /** Why the field got its class, e.g. `name:password`, `format:password`, `default:jwt`. Never a value. */
  readonly reasons: readonly string[];
}

/** What `auditForm` returns: a fixed shape. */
export interface FormAudit {
  readonly verdict: Verdict;
  readonly fields: readonly FieldReport[];
  readonly findings: readonly Finding[];
  /** `sha256:<hex>` of the requestedSchema; present when a field is sensitive (for a `form.allow` rule by schema). */
  readonly schemaDigest?: string;
  /** The server's `form.allow` rules this audit applied (only present when one was). */
  readonly exceptions?: readonly ExceptionUse[];
}

/** What `checkContent` returns for an accepted form answer. */
export interface ContentCheck {
  readonly ok: boolean;
  /** `E_CONTENT_INVALID` / `E_SECRET_IN_CONTENT` findings naming fields, never values. */
  readonly findings: readonly Finding[];
}
