/** The judgement shapes shared by the form audit and the URL analysis. */

export type Verdict = 'allow' | 'warn' | 'block';

/** `error` findings block, `warning` findings warn, `info` findings are shown only. */
export type Severity = 'error' | 'warning' | 'info';

export interface Finding {
  /** A stable code, e.g. `E_SENSITIVE_FIELD`, `URL_USERINFO`. */
  readonly code: string;
  readonly severity: Severity;
  /** What a user needs to read: never a secret, never a URL query value. */
  readonly message: string;
  /** The form field the finding is about, when it is about one. */
  readonly field?: string;
}

/** The verdict that a list of findings implies: any error blocks, any warning warns. */
export function verdictOf(findings: readonly Finding[]): Verdict {
  let verdict: Verdict = 'allow';
  for (const f of findings) {
    if (f.severity === 'error') return 'block';
    if (f.severity === 'warning') verdict = 'warn';
  }
  return verdict;
}

/** What kind of narrow policy exception was used (`servers.<key>.form.allow`, `servers.<key>.url.allow`). */
export type ExceptionKind = 'form-field' | 'form-schema' | 'url-domain';

/** An exception a checker applied; the guard turns it into an `exception.used` event. */
export interface ExceptionUse {
  readonly type: 'exception.used';
  readonly kind: ExceptionKind;
  /** The field name, the schema digest or the registrable domain the rule matched. */
  readonly target: string;
  readonly reason: string;
  /** The finding codes the rule excused. */
  readonly findings: readonly string[];
}
