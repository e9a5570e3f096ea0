/**
 * The URL sets of the gate, one line each, measured by the `eval` command: the development
 * corpus (written with the rules), the blind set (labelled before the engine saw it) and the
 * real-world set (real MCP servers' URL elicitations and connector pages). Each must block every
 * malicious row and no legitimate one.
 */
import { fileURLToPath } from 'node:url';
import { evalCommand, type EvalSummary } from '../../src/cli/eval.js';
import { memoryIo } from '../../test/cli/memory-io.js';
import { percent, type GateLine } from './types.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

export const URL_SETS: readonly { readonly name: string; readonly files: readonly string[] }[] = [
  { name: 'development', files: ['fixtures/urls/malicious.jsonl', 'fixtures/urls/legitimate.jsonl', 'fixtures/urls/suspicious.jsonl'] },
  { name: 'blind', files: ['fixtures/urls/blind/blind.jsonl'] },
  { name: 'real-world', files: ['fixtures/urls/real-world.jsonl'] },
];

async function runEval(files: readonly string[]): Promise<EvalSummary> {
  const m = memoryIo({ cwd: REPO });
  const code = await evalCommand([...files.flatMap((f) => ['--urls', f]), '--json'], m.io);
  // 0 or 1 is a measurement (1 = a labelled row missed); 2 means the inputs could not be read.
  if (code !== 0 && code !== 1) throw new Error(`eval exited ${code}: ${m.stderr().trim()}`);
  return JSON.parse(m.stdout()) as EvalSummary;
}

/** One gate line for one URL set: malicious rows blocked and legitimate rows rejected. */
export async function urlSetLine(set: (typeof URL_SETS)[number]): Promise<GateLine> {
  const summary = await runEval(set.files);
  const { malicious, legitimate } = summary.labelled;
  const missed = summary.labelled.categories.flatMap((c) =>
    c.missed.map((m) => `missed [${c.category}] ${m.file}:${m.line} expected ${m.expected} → ${m.verdict}`),
  );
  return {
    name: `URL set ${set.name}: malicious blocked, legitimate rejected`,
    measured:
      `${malicious.blocked}/${malicious.rows} = ${percent(malicious.blocked, malicious.rows)};` +
      ` ${legitimate.blocked}/${legitimate.rows} = ${percent(legitimate.blocked, legitimate.rows)}`,
    threshold: '= 100 %; 0',
    pass: malicious.rows > 0 && malicious.blocked === malicious.rows && legitimate.blocked === 0,
    notes: [
      `${set.files.join(
        ', ',
      )}: ${summary.labelled.rows} rows, ${summary.labelled.categories.length} categories, ${summary.misses} missed ` +
        `expectations (warn rows included)`,
      ...missed.slice(0, 10),
    ],
  };
}
