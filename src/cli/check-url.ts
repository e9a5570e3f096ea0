import { createInterface } from 'node:readline';
import type { Policy } from '../policy/policy.js';
import { GuardCode } from '../protocol/errors.js';
import type { Finding, Verdict } from '../protocol/verdict.js';
import { renderUrl } from '../render/index.js';
import { EMPTY_DISPLAY } from '../url/display.js';
import type { UrlDisplay } from '../url/types.js';
import { BufferedWriter } from './buffered-writer.js';
import { Exit, UsageError, writeLine, type CliIo, parseCommandArgs } from './io.js';
import { judgeUrl } from './judge.js';
import { commandPolicy } from './run-policy.js';

const HELP = `usage:
  mcp-elicitation-guard check-url [--policy FILE] [--json] URL...
  mcp-elicitation-guard check-url [--policy FILE] --jsonl < urls.jsonl

Judges each URL as a URL-mode elicitation would be judged and shows it the way a user should see it:
the registrable domain highlighted, the host in its safe form, the findings to read.

options:
  --policy FILE   policy file (default: the built-in production policy)
  --json          one JSON object per URL: {url, verdict, findings, display}
  --jsonl         read JSON Lines on stdin, each an object with a "url" field; write each line back,
                  in order, with "verdict", "findings" and "display" added (other fields unchanged).
                  A line that is not such an object gets verdict "block" with finding E_INPUT.

exit codes: 0 nothing blocked, 1 at least one URL blocked, 2 bad usage or unreadable policy`;

interface Options {
  readonly policyFile: string | undefined;
  readonly json: boolean;
  readonly jsonl: boolean;
  readonly urls: readonly string[];
  readonly help: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  const parsed = parseCommandArgs(
    argv,
    { policy: { type: 'string' }, json: { type: 'boolean' }, jsonl: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    true,
  );
  const { values, positionals } = parsed;
  const options: Options = {
    policyFile: values.policy,
    json: values.json === true,
    jsonl: values.jsonl === true,
    urls: positionals,
    help: values.help === true,
  };
  if (options.help) return options;
  if (options.jsonl && options.urls.length > 0) throw new UsageError('--jsonl reads URLs from stdin; do not also pass URLs as arguments');
  if (!options.jsonl && options.urls.length === 0) throw new UsageError('give at least one URL, or --jsonl to read JSON Lines from stdin');
  return options;
}

const TAGS: Readonly<Record<Verdict, { plain: string; ansi: string }>> = {
  block: { plain: 'BLOCK', ansi: '\u001b[41;97;1m BLOCK \u001b[0m' },
  warn: { plain: 'WARN ', ansi: '\u001b[43;30;1m WARN  \u001b[0m' },
  allow: { plain: 'ALLOW', ansi: '\u001b[42;30;1m ALLOW \u001b[0m' },
};

function humanBlock(url: string, verdict: Verdict, findings: readonly Finding[], display: UrlDisplay | null, ansi: boolean): string {
  const fallback: UrlDisplay = { ...EMPTY_DISPLAY, full: url };
  const lines = renderUrl(display ?? fallback, ansi ? 'ansi' : 'plain', findings).split('\n');
  const tag = ansi ? TAGS[verdict].ansi : TAGS[verdict].plain;
  const indent = ' '.repeat(ansi ? 8 : 6);
  return `${tag} ${lines[0]}\n${lines
    .slice(1)
    .map((l) => indent + l + '\n')
    .join('')}\n`;
}

async function checkArguments(options: Options, policy: Policy, io: CliIo): Promise<number> {
  const out = new BufferedWriter(io.stdout);
  let blocked = false;
  for (const url of options.urls) {
    const { verdict, findings, display } = judgeUrl(url, policy);
    if (verdict === 'block') blocked = true;
    await out.write(
      options.json ? JSON.stringify({ url, verdict, findings, display }) + '\n' : humanBlock(url, verdict, findings, display, io.isTTY),
    );
  }
  await out.flush();
  return blocked ? Exit.blocked : Exit.ok;
}

function inputError(lineNumber: number, reason: string): Finding {
  return { code: GuardCode.input, severity: 'error', message: `line ${lineNumber} ${reason}` };
}

/** One output line for one input line of `--jsonl`. */
function jsonlLine(line: string, lineNumber: number, policy: Policy): { text: string; blocked: boolean } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return {
      text: JSON.stringify({ line: lineNumber, verdict: 'block', findings: [inputError(lineNumber, 'is not valid JSON')], display: null }),
      blocked: true,
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      text: JSON.stringify({
        line: lineNumber,
        verdict: 'block',
        findings: [inputError(lineNumber, 'is not a JSON object')],
        display: null,
      }),
      blocked: true,
    };
  }
  const record = value as Record<string, unknown>;
  if (typeof record.url !== 'string') {
    return {
      text: JSON.stringify({ ...record, verdict: 'block', findings: [inputError(lineNumber, 'has no string "url" field')], display: null }),
      blocked: true,
    };
  }
  const { verdict, findings, display } = judgeUrl(record.url, policy);
  return { text: JSON.stringify({ ...record, verdict, findings, display }), blocked: verdict === 'block' };
}

async function checkJsonl(policy: Policy, io: CliIo): Promise<number> {
  const out = new BufferedWriter(io.stdout);
  const lines = createInterface({ input: io.stdin, crlfDelay: Infinity });
  let blocked = false;
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    if (line.trim() === '') continue;
    const result = jsonlLine(line, lineNumber, policy);
    if (result.blocked) blocked = true;
    await out.write(result.text + '\n');
  }
  await out.flush();
  return blocked ? Exit.blocked : Exit.ok;
}

/** `check-url`: judge and display URLs given as arguments or as JSON Lines on stdin. */
export async function checkUrlCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const options = parseOptions(argv);
  if (options.help) {
    writeLine(io.stdout, HELP);
    return Exit.ok;
  }
  const policy = commandPolicy('check-url', options.policyFile, io);
  if (policy === null) return Exit.usage;
  return options.jsonl ? checkJsonl(policy, io) : checkArguments(options, policy, io);
}
