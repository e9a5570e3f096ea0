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
