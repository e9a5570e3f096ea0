/**
 * The form lines of the gate (issue 12): the development set, the blind set, the real servers'
 * forms and the four holdout sets, each measured by `eval --forms` itself. A line passes with no
 * sensitive form let through and under 0.5 % of ordinary forms blocked.
 */
import { fileURLToPath } from 'node:url';
import { evalCommand, type EvalSummary } from '../../src/cli/eval.js';
import { memoryIo } from '../../test/cli/memory-io.js';
import { percent, type GateLine } from './types.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const MAX_ORDINARY_BLOCKED = 0.005;

export const FORM_SETS: readonly { readonly name: string; readonly file: string }[] = [
  { name: 'forms, development set', file: 'fixtures/forms/labelled.jsonl' },
  { name: 'forms, blind set', file: 'fixtures/forms/blind.jsonl' },
  { name: 'forms, real servers', file: 'fixtures/forms/real-world.jsonl' },
  // The holdout sets, each written and labelled before its first run (the blind protocol of issue 12).
  { name: 'forms, holdout 1', file: 'fixtures/forms/holdout.jsonl' },
  { name: 'forms, holdout 2', file: 'fixtures/forms/holdout-2.jsonl' },
  { name: 'forms, holdout 3', file: 'fixtures/forms/holdout-3.jsonl' },
  { name: 'forms, holdout 4', file: 'fixtures/forms/holdout-4.jsonl' },
];

export async function formLine(set: (typeof FORM_SETS)[number]): Promise<GateLine> {
  const m = memoryIo({ cwd: REPO });
  const code = await evalCommand(['--forms', set.file, '--json'], m.io);
  if (code !== 0 && code !== 1) throw new Error(`eval exited ${code}: ${m.stderr().trim()}`);
  const forms = (JSON.parse(m.stdout()) as EvalSummary).forms;
  if (forms === undefined) throw new Error('eval --forms printed no forms summary');
  const { sensitive, ordinary } = forms;
  const missed = forms.categories.flatMap((c) =>
    c.missed.map((x) => `missed [${c.category}] ${x.id} expected ${x.expected}, got ${x.verdict}`),
  );
  return {
    name: set.name,
    measured:
      `let through ${sensitive.letThrough}/${sensitive.rows}; ordinary blocked ${ordinary.blocked}/${ordinary.rows} ` +
      `= ${percent(ordinary.blocked, ordinary.rows)}`,
    threshold: '0 let through; < 0.5 % blocked',
    pass: sensitive.rows > 0 && ordinary.rows > 0 && sensitive.letThrough === 0 && ordinary.blocked / ordinary.rows < MAX_ORDINARY_BLOCKED,
    notes: [
      `${set.file}: ${forms.rows} rows, ${forms.categories.length} categories, ${forms.fieldMismatches.length} field classes ` +
        `off their labels`,
      ...missed.slice(0, 10),
    ],
  };
}
