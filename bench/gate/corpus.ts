/**
 * The two URL-corpus lines, measured by the `eval` command itself (the same row parsing, policy
 * merging and fail-closed judging users run), so the gate cannot drift from what `eval` reports.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { evalCommand, type EvalSummary } from '../../src/cli/eval.js';
import { memoryIo } from '../../test/cli/memory-io.js';
import { CORPORA_DIR, CORPORA_REQUIRED, corporaAvailable, corporaMissingLine } from '../../test/helpers/corpora.js';
import { percent, type GateLine } from './types.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const CORPORA = CORPORA_DIR;
const MALICIOUS = 'fixtures/urls/malicious.jsonl';
const HOST_LISTS = ['legit-domains.txt', 'legit-hosts-umbrella.txt'];
const MAX_FALSE_REJECTION = 0.001;

async function runEval(argv: readonly string[]): Promise<EvalSummary> {
  const m = memoryIo({ cwd: REPO });
  const code = await evalCommand([...argv, '--json'], m.io);
  // 0 or 1 is a measurement (1 = a labelled row missed); 2 means the inputs could not be read.
  if (code !== 0 && code !== 1) throw new Error(`eval exited ${code}: ${m.stderr().trim()}`);
  return JSON.parse(m.stdout()) as EvalSummary;
}

/** `fixtures/urls/malicious.jsonl` (every row expected `block`, row policies merged by `eval`). */
export async function maliciousLine(): Promise<GateLine> {
  const summary = await runEval(['--urls', MALICIOUS]);
  const { rows, blocked } = summary.labelled.malicious;
  const missed = summary.labelled.categories.flatMap((c) =>
    c.missed.map((m) => `missed [${c.category}] ${m.file}:${m.line} → ${m.verdict}`),
  );
  return {
    name: 'malicious-URL corpus blocked',
    measured: `${blocked}/${rows} = ${percent(blocked, rows)}`,
    threshold: '= 100 %',
    pass: rows > 0 && blocked === rows && summary.labelled.rows === rows,
    notes: [`${MALICIOUS}: ${rows} rows, ${summary.labelled.categories.length} categories`, ...missed.slice(0, 10)],
  };
}

/**
 * The observed IDN sites of `legit-idn.tsv` (its `kind` column): public-suffix rows have no
 * registrable domain of their own and are not sites, so they are not URLs a server would send.
 */
function observedIdnSites(): string[] {
  const rows = readFileSync(join(CORPORA, 'legit-idn.tsv'), 'utf8').split('\n').slice(1);
  return rows
    .map((row) => row.split('\t'))
    .filter((cols) => cols[2] === 'observed-site' && cols[0] !== undefined && cols[0] !== '')
    .map((cols) => cols[0]!);
}

/** Legitimate hosts of `../shared/corpora` as `https://<host>/`: blocked ones are false rejections. */
export async function falseRejectionLine(): Promise<GateLine> {
  if (!corporaAvailable()) {
    // Not measured is not passed: the line says so, and fails under CI=true where the corpora exist.
    return {
      name: 'legitimate domains falsely rejected',
      measured: 'not measured',
      threshold: '< 0.1 %',
      pass: !CORPORA_REQUIRED,
      skipped: true,
      notes: [corporaMissingLine('this line')],
    };
  }
  // eval reads host lists from files; the filtered IDN list lives only for this run, outside the repo.
  const scratch = mkdtempSync(join(tmpdir(), 'meg-gate-idn-'));
  try {
    const idnFile = join(scratch, 'legit-idn-observed-sites.txt');
    writeFileSync(idnFile, observedIdnSites().join('\n') + '\n');
    const lists = [...HOST_LISTS.map((f) => relative(REPO, join(CORPORA, f))), idnFile];
    const summary = await runEval(lists.flatMap((file) => ['--legit', file]));
    const hosts = summary.legitFiles.reduce((n, f) => n + f.hosts, 0);
    const blocked = summary.legitFiles.reduce((n, f) => n + f.blocked, 0);
    const names = [...HOST_LISTS, 'legit-idn.tsv (observed-site rows)'];
    return {
      name: 'legitimate domains falsely rejected',
      measured: `${blocked}/${hosts} = ${percent(blocked, hosts, 3)}`,
      threshold: '< 0.1 %',
      pass: hosts > 0 && summary.legitFiles.every((f) => f.hosts > 0) && blocked / hosts < MAX_FALSE_REJECTION,
      notes: summary.legitFiles.map(
        (f, i) =>
          `${names[i]}: ${f.hosts} hosts, ${f.blocked} blocked, ${f.warned} warned${
            f.blockedHosts.length > 0
              ? ` (${f.blockedHosts
                  .slice(0, 5)
                  .map((b) => `${b.host}: ${b.codes.join(',')}`)
                  .join('; ')})`
              : ''
          }`,
      ),
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
