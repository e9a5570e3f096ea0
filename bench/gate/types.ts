/** One line of the release gate: what was measured in this run, against what it must meet. */
export interface GateLine {
  readonly name: string;
  /** The measured value as shown in the table (a ratio, a rate, a count, a duration). */
  readonly measured: string;
  readonly threshold: string;
  readonly pass: boolean;
  /** The line could not be measured in this run (its inputs are absent); `pass` then says whether that is allowed. */
  readonly skipped?: boolean;
  /** What a reader needs to trust or investigate the figure; printed under the table. */
  readonly notes: readonly string[];
}

export function percent(part: number, whole: number, digits = 2): string {
  return whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(digits)} %`;
}
