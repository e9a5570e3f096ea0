/** The findings of one analysis, and the fixed-shape result built from them. */
import { verdictOf, type Finding, type Severity } from '../../../../src/protocol/verdict.js';
import type { UrlFindingCode } from './codes.js';
import type { UrlAnalysis, UrlDisplay } from './types.js';

export class Findings {
  readonly list: Finding[] = [];

  /** Adds a finding unless the same code and message are already there. */
  add(code: UrlFindingCode, severity: Severity, message: string): void {
    for (const f of this.list) if (f.code === code && f.message === message) return;
    this.list.push({ code, severity, message });
  }
}

export function result(findings: Findings, display: UrlDisplay): UrlAnalysis {
  return { verdict: verdictOf(findings.list), findings: findings.list, display };
}
