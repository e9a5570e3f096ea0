import { createReadStream, openSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { auditForm } from '../form/audit.js';
import type { FormAudit } from '../form/types.js';
import type { Policy } from '../policy/policy.js';
import { GuardCode } from '../protocol/errors.js';
import type { Finding } from '../protocol/verdict.js';
import { commandPolicy } from './run-policy.js';
import { Exit, UsageError, writeLine, type CliIo, type Command, parseCommandArgs } from './io.js';

const HELP = `usage:
  mcp-elicitation-guard audit-schema [FILE|-] [--policy FILE] [--json]
  mcp-elicitation-guard audit-schema --jsonl [FILE|-] [--policy FILE]

Audits a form-mode elicitation: the schema against the spec 2025-11-25 allowlist, and each field
for credentials, payment data and personal data.

  FILE            elicitation/create params ({message, requestedSchema}) or a bare requestedSchema;
                  "-" or no FILE reads stdin. On a terminal it prints a readable report (the
                  verdict, each field with its class and reasons, the findings, the schema digest
                  a form.allow rule names); otherwise, or with --json, one JSON object:
                  {verdict, fields, findings}.
  --json          JSON even on a terminal
  --jsonl         read JSON Lines, each an object with "params" (other keys are copied through);
                  write one line per input line, in order, with verdict, fields and findings added.
                  A bad line gets verdict "block" and finding E_INPUT; blank lines are skipped.
  --policy FILE   the policy to apply (default: the built-in production policy)
  --help          show this help

exit codes: 0 nothing blocked, 1 something blocked, 2 bad usage or unreadable input`;

interface Options {
  readonly file: string | undefined;
  readonly jsonl: boolean;
  readonly json: boolean;
  readonly policyFile: string | undefined;
  readonly help: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  const parsed = parseCommandArgs(
    argv,
    { policy: { type: 'string' }, jsonl: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    true,
  );
  if (parsed.positionals.length > 1) throw new UsageError('audit-schema takes at most one FILE');
  if (parsed.values.json === true && parsed.values.jsonl === true) throw new UsageError('--jsonl already writes JSON; drop --json');
  return {
    file: parsed.positionals[0],
    jsonl: parsed.values.jsonl === true,
    json: parsed.values.json === true,
    policyFile: parsed.values.policy,
    help: parsed.values.help === true,
  };
}

/** The output shape of one audit: exactly `verdict`, `fields` and `findings`. */
function publicAudit(audit: FormAudit): { verdict: string; fields: unknown[]; findings: unknown[] } {
  return {
    verdict: audit.verdict,
    fields: audit.fields.map((f) => ({ name: f.name, class: f.class, reasons: [...f.reasons] })),
    findings: audit.findings.map(publicFinding),
  };
}

function publicFinding(f: Finding): Record<string, string> {
  return f.field === undefined
    ? { code: f.code, severity: f.severity, message: f.message }
    : { code: f.code, severity: f.severity, message: f.message, field: f.field };
}

function inputError(message: string): { verdict: 'block'; fields: []; findings: Finding[] } {
  return { verdict: 'block', fields: [], findings: [{ code: GuardCode.input, severity: 'error', message }] };
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Writes one line, waiting when the reader is slower than the audit (no unbounded buffering). */
async function emit(out: Writable, line: string): Promise<void> {
  if (!out.write(line + '\n')) await new Promise<void>((done) => out.once('drain', done));
}

async function single(options: Options, policy: Policy, io: CliIo): Promise<number> {
  let text: string;
  if (options.file === undefined || options.file === '-') {
    text = await readAll(io.stdin);
  } else {
    const path = resolve(io.cwd, options.file);
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      writeLine(
        io.stderr,
        `mcp-elicitation-guard audit-schema: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
      return Exit.usage;
    }
  }
  let params: unknown;
  try {
    params = JSON.parse(stripBom(text));
  } catch (error) {
    writeLine(
      io.stderr,
      `mcp-elicitation-guard audit-schema: ${GuardCode.input}: the input is not valid JSON (${(error as Error).message})`,
    );
    return Exit.usage;
  }
  const audit = auditForm(params, policy);
  if (io.isTTY && !options.json) io.stdout.write(humanAudit(audit, true));
  else writeLine(io.stdout, JSON.stringify(publicAudit(audit), null, 2));
  return audit.verdict === 'block' ? Exit.blocked : Exit.ok;
}

const TAGS: Readonly<Record<FormAudit['verdict'], string>> = {
  block: '\u001b[41;97;1m BLOCK \u001b[0m',
  warn: '\u001b[43;30;1m WARN  \u001b[0m',
  allow: '\u001b[42;30;1m ALLOW \u001b[0m',
};

/** Server text shown on a terminal: no control characters (escape sequences could repaint the screen). */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The terminal report of one audit. */
export function humanAudit(audit: FormAudit, ansi: boolean): string {
  const bold = (t: string) => (ansi ? `\u001b[1m${t}\u001b[0m` : t);
  const lines = [
    `${ansi ? TAGS[audit.verdict] : audit.verdict.toUpperCase().padEnd(5)} form with ${audit.fields.length} ` +
      `field${audit.fields.length === 1 ? '' : 's'}`,
  ];
  const width = Math.max(0, ...audit.fields.map((f) => printable(f.name).length + 2));
  for (const f of audit.fields) {
    const name = JSON.stringify(printable(f.name)).padEnd(width);
    const cls = f.class === 'ordinary' ? f.class : bold(f.class);
    lines.push(
      `  field ${name}  ${cls.padEnd(
        ansi && f.class !== 'ordinary' ? 18 : 10,
      )}${f.reasons.length > 0 ? ` ${printable(f.reasons.join(', '))}` : ''}`,
    );
  }
  for (const f of audit.findings) lines.push(`  [${f.severity}] ${f.code}: ${printable(f.message)}`);
  for (const e of audit.exceptions ?? []) lines.push(`  [allowed] ${e.kind} ${printable(e.target)}: ${printable(e.reason)}`);
  if (audit.schemaDigest !== undefined) lines.push(`  schema digest: ${audit.schemaDigest} (a servers.<key>.form.allow rule can name it)`);
  return lines.join('\n') + '\n';
}

/** The output line for one input line (already known not to be blank). */
function auditLine(line: string, lineNumber: number, policy: Policy): { readonly text: string; readonly blocked: boolean } {
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch {
    return { text: JSON.stringify(inputError(`line ${lineNumber}: not valid JSON`)), blocked: true };
  }
  if (typeof row !== 'object' || row === null || Array.isArray(row)) {
    return { text: JSON.stringify(inputError(`line ${lineNumber}: not a JSON object`)), blocked: true };
  }
  const record = row as Record<string, unknown>;
  if (!Object.hasOwn(record, 'params')) {
    return { text: JSON.stringify({ ...record, ...inputError(`line ${lineNumber}: no "params" key`) }), blocked: true };
  }
  const audit = auditForm(record['params'], policy);
  try {
    return { text: JSON.stringify({ ...record, ...publicAudit(audit) }), blocked: audit.verdict === 'block' };
  } catch {
    // JSON.stringify recurses: a line nested deeper than the stack allows cannot be copied through.
    return { text: JSON.stringify(inputError(`line ${lineNumber}: too deeply nested to copy through`)), blocked: true };
  }
}

async function jsonl(options: Options, policy: Policy, io: CliIo): Promise<number> {
  let input: Readable;
  if (options.file === undefined || options.file === '-') {
    input = io.stdin;
  } else {
    const path = resolve(io.cwd, options.file);
    try {
      input = createReadStream('', { fd: openSync(path, 'r') });
    } catch (error) {
      writeLine(
        io.stderr,
        `mcp-elicitation-guard audit-schema: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
      return Exit.usage;
    }
  }
  const lines = createInterface({ input, crlfDelay: Infinity });
  let lineNumber = 0;
  let blocked = false;
  try {
    for await (const raw of lines) {
      lineNumber++;
      const line = lineNumber === 1 ? stripBom(raw) : raw;
      if (line.trim() === '') continue;
      const result = auditLine(line, lineNumber, policy);
      if (result.blocked) blocked = true;
      await emit(io.stdout, result.text);
    }
  } catch (error) {
    writeLine(
      io.stderr,
      `mcp-elicitation-guard audit-schema: reading the input failed after ` +
        `line ${lineNumber}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
    return Exit.usage;
  }
  return blocked ? Exit.blocked : Exit.ok;
}

/** `audit-schema [FILE|-] [--policy FILE] [--jsonl]`. */
export const auditSchemaCommand: Command = async (argv, io) => {
  const options = parseOptions(argv);
  if (options.help) {
    writeLine(io.stdout, HELP);
    return Exit.ok;
  }
  const policy = commandPolicy('audit-schema', options.policyFile, io);
  if (policy === null) return Exit.usage;
  return options.jsonl ? jsonl(options, policy, io) : single(options, policy, io);
};
