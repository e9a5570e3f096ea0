/**
 * Vitest global setup: gives the run an id (inherited by the workers through the environment) and,
 * at teardown, sums the counters the fault files wrote and fails the run if an invariant broke.
 * A run without fault files (e.g. `npx vitest run test/url`) has nothing to sum and passes.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { countersFile, formatTotals, parseCounters, RUN_ENV, sumCounters, violations } from './totals.js';

export default function setup(): () => void {
  const runId = `${process.pid}-${randomBytes(6).toString('hex')}`;
  process.env[RUN_ENV] = runId;
  const file = countersFile(runId);
  return () => {
    if (!existsSync(file)) return;
    const text = readFileSync(file, 'utf8');
    rmSync(file, { force: true });
    const totals = sumCounters(parseCounters(text));
    console.log(`\n${formatTotals(totals)}\n`);
    const broken = violations(totals);
    if (broken.length > 0) {
      // Vitest reports a teardown error but does not change the exit code for it: set it here.
      process.exitCode = 1;
      throw new Error(`fault suite invariants broken:\n- ${broken.join('\n- ')}`);
    }
  };
}
