/** The findings of one analysis, and the fixed-shape result built from them. */
import { verdictOf, type Finding, type Severity } from '../protocol/verdict.js';
import type { UrlFindingCode } from './codes.js';
import type { UrlAnalysis, UrlDisplay } from './types.js';

/** The list of an analysis that found nothing: shared, so frozen (most URLs find nothing). */
const NONE: readonly Finding[] = Object.freeze([]);

export class Findings {
  #list: Finding[] | null = null;

  /** What was found, in order; a frozen empty list when nothing was. */
  get list(): readonly Finding[] {
    return this.#list ?? NONE;
  }

  /** Adds a finding unless the same code and message are already there. */
  add(code: UrlFindingCode, severity: Severity, message: string): void {
    const list = this.#list;
    if (list === null) {
      this.#list = [{ code, severity, message }];
      return;
    }
    for (const f of list) if (f.code === code && f.message === message) return;
    list.push({ code, severity, message });
  }
}

export function result(findings: Findings, display: UrlDisplay): UrlAnalysis {
  const list = findings.list;
  return { verdict: list.length === 0 ? 'allow' : verdictOf(list), findings: list, display };
}
