import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { FLOW_STATES, isFlowState, type FlowState } from '../flow/states.js';
import { moveByHand, type ManualAction } from '../ledger/manual.js';
import { ledgerExists, openLedger, parseLedgerSpec, type LedgerLocation } from '../ledger/open.js';
import type { Ledger, StoredNavigation } from '../ledger/types.js';
import { GuardCode, GuardError } from '../protocol/errors.js';
import { Exit, UsageError, writeLine, type CliIo, parseCommandArgs } from './io.js';
import { defaultLedgerPath } from './ledger-path.js';
import { ledgerServeCommand } from './ledger-serve.js';

const HELP = `usage:
  mcp-elicitation-guard ledger list [--state STATE] [--limit N]   list URL-mode flows, newest first
  mcp-elicitation-guard ledger show ID                            a navigation record, its history, consent and business receipts
  mcp-elicitation-guard ledger recover ID                         take up a pending or expired flow by hand (→ USER_RETRY)
  mcp-elicitation-guard ledger confirm ID                         "I have finished": the out-of-band step is done (→ REQUIREMENT_VERIFIED)
  mcp-elicitation-guard ledger cancel ID                          cancel a live flow (→ CANCELLED)
  mcp-elicitation-guard ledger serve [--port N] [--open] [--listen-anywhere]
                                                                  the query page: a local web view of the ledger with these controls

options:
  --ledger FILE|URL  the ledger file (default: $MCP_GUARD_LEDGER, else
                  $XDG_STATE_HOME/mcp-elicitation-guard/ledger.sqlite or
                  ~/.local/state/mcp-elicitation-guard/ledger.sqlite), or a postgres://user@host/db
                  URL of a ledger shared by many proxies (password from PGPASSWORD or ~/.pgpass);
                  serve also takes "memory"
  --json          machine-readable output on stdout (errors too)

exit codes: 0 done, 1 refused (unknown id, a move the flow does not allow, a concurrent change),
            2 bad usage or an unusable ledger file`;

export { defaultLedgerPath } from './ledger-path.js';

const OPTIONS = {
  ledger: { type: 'string' },
  json: { type: 'boolean' },
  state: { type: 'string' },
  limit: { type: 'string' },
} as const;

interface Parsed {
  readonly sub: 'list' | 'show' | 'recover' | 'confirm' | 'cancel';
  readonly id: string | null;
  readonly file: string;
  readonly location: LedgerLocation;
  readonly json: boolean;
  readonly state: FlowState | undefined;
  readonly limit: number | undefined;
}

/** `ledger list | show ID | recover ID | cancel ID`. */
export async function ledgerCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const [sub] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    writeLine(sub === undefined ? io.stderr : io.stdout, HELP);
    return sub === undefined ? Exit.usage : Exit.ok;
  }
  if (sub === 'serve') return ledgerServeCommand(argv.slice(1), io);
  const parsed = parse(argv, io);
  if (!ledgerExists(parsed.location)) {
    // Reading must not create a ledger as a side effect: a missing file simply holds nothing.
    if (parsed.sub === 'list') {
      if (parsed.json) writeLine(io.stdout, '[]');
      else writeLine(io.stderr, `no ledger at ${parsed.file}`);
      return Exit.ok;
    }
    return refuse(
      io,
      parsed.json,
      new GuardError(GuardCode.unknownNavigation, `no navigation record "${parsed.id}" (no ledger at ${parsed.file})`, { id: parsed.id }),
    );
  }
  let ledger: Ledger;
  try {
    ledger = await openLedger(parsed.location);
  } catch (error) {
    return refuse(io, parsed.json, error);
  }
  try {
    switch (parsed.sub) {
      case 'list':
        return await list(ledger, parsed, io);
      case 'show':
        return await show(ledger, parsed.id!, parsed.json, io);
      case 'recover':
        return await move(ledger, parsed.id!, 'recover', parsed.json, io);
      case 'confirm':
        return await move(ledger, parsed.id!, 'confirm', parsed.json, io);
      case 'cancel':
        return await move(ledger, parsed.id!, 'cancel', parsed.json, io);
    }
  } catch (error) {
    return refuse(io, parsed.json, error);
  } finally {
    await ledger.close();
  }
}

function parse(argv: readonly string[], io: CliIo): Parsed {
  const { positionals, values } = parseCommandArgs(argv, OPTIONS);
  const [sub, ...rest] = positionals;
  if (sub !== 'list' && sub !== 'show' && sub !== 'recover' && sub !== 'confirm' && sub !== 'cancel') {
    throw new UsageError(`unknown ledger subcommand "${sub ?? ''}" (list, show, recover, confirm, cancel, serve)`);
  }
  if (sub === 'list' && rest.length > 0) throw new UsageError('ledger list takes no positional arguments');
  if (sub !== 'list' && rest.length !== 1) throw new UsageError(`ledger ${sub} takes exactly one ID`);
  if (sub !== 'list' && (values.state !== undefined || values.limit !== undefined))
    throw new UsageError('--state and --limit belong to ledger list');
  const state = values.state;
  if (state !== undefined && !isFlowState(state)) throw new UsageError(`--state must be one of ${FLOW_STATES.join(', ')}`);
  let limit: number | undefined;
  if (values.limit !== undefined) {
    limit = Number(values.limit);
    if (!/^[0-9]+$/.test(values.limit) || !Number.isSafeInteger(limit) || limit < 1)
      throw new UsageError('--limit must be a positive integer');
  }
  const env = process.env['MCP_GUARD_LEDGER'];
  const spec = values.ledger ?? (env !== undefined && env !== '' ? env : defaultLedgerPath(process.env, homedir()));
  let location: LedgerLocation;
  try {
    location = spec === 'memory' ? parseLedgerSpec(resolve(io.cwd, spec), io.cwd) : parseLedgerSpec(spec, io.cwd);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return { sub, id: rest[0] ?? null, file: location.display, location, json: values.json === true, state, limit };
}

async function list(ledger: Ledger, parsed: Parsed, io: CliIo): Promise<number> {
  const query = {
    ...(parsed.state !== undefined ? { state: parsed.state } : {}),
    ...(parsed.limit !== undefined ? { limit: parsed.limit } : {}),
  };
  const flows = await ledger.listNavigations(query);
  if (parsed.json) {
    writeLine(io.stdout, JSON.stringify(flows.map(summary), null, 2));
    return Exit.ok;
  }
  if (flows.length === 0) {
    writeLine(io.stderr, 'no flows');
    return Exit.ok;
  }
  const rows = flows.map((f) => [
    f.record.id,
    f.flow.state,
    printable(f.record.server.name ?? f.record.server.key ?? '-'),
    hostOf(f),
    iso(f.record.createdAt),
    iso(f.record.expiresAt),
  ]);
  const header = ['ID', 'STATE', 'SERVER', 'TARGET', 'CREATED', 'EXPIRES'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const row of [header, ...rows])
    writeLine(
      io.stdout,
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
  return Exit.ok;
}

async function show(ledger: Ledger, id: string, json: boolean, io: CliIo): Promise<number> {
  const stored = await ledger.getNavigation(id);
  if (stored === null) throw new GuardError(GuardCode.unknownNavigation, `no navigation record "${id}" in the ledger`, { id });
  const [history, consents] = await Promise.all([ledger.listTransitions(id), ledger.listConsentReceipts(id)]);
  // The business receipts that rest on this flow's consent: the original operation it let through.
  const mine = new Set(consents.map((c) => c.id));
  const digest = stored.record.originalRequestDigest;
  const business =
    digest === null ? [] : (await ledger.listBusinessReceipts(digest)).filter((b) => b.requirementReceiptIds.some((c) => mine.has(c)));
  if (json) {
    writeLine(io.stdout, JSON.stringify({ record: stored.record, flow: stored.flow, history, consents, business }, null, 2));
    return Exit.ok;
  }
  const r = stored.record;
  const lines = [
    `navigation ${r.id}`,
    `  state:        ${stored.flow.state}${
      stored.flow.trigger === null ? '' : ` (on ${stored.flow.trigger}, ${iso(stored.flow.updatedAt)})`
    }`,
    (
      `  server:       ${printable(r.server.name ?? '-')} ${printable(r.server.version ?? '')} ` + `(key ${printable(r.server.key ?? '-')})`
    ).trimEnd(),
    `  elicitation:  ${printable(r.elicitationId)}`,
    `  target:       ${hostOf(stored)} (url sha256 ${r.target.urlDigest})`,
    `  redirects:    ${r.redirectPolicy === 'any' ? 'any' : r.redirectPolicy.length === 0 ? 'none' : r.redirectPolicy.join(', ')}`,
    `  purpose:      ${printable(r.purpose)}`,
    `  subject:      ${printable(r.subject ?? '-')}`,
    `  original:     ${r.originalRequestDigest ?? '-'}`,
    `  generation:   ${r.sessionGeneration}`,
    `  created:      ${iso(r.createdAt)}`,
    `  expires:      ${iso(r.expiresAt)}`,
    'history:',
    ...history.map((t) => `  ${iso(t.at)}  ${t.from ?? '(recorded)'} → ${t.to}${t.trigger === null ? '' : ` on ${t.trigger}`}`),
    'consent receipts:',
    ...(consents.length === 0
      ? ['  none']
      : consents.map((c) => `  ${iso(c.at)}  ${c.decision.padEnd(7)}  ${c.id}  shown sha256 ${c.shownDigest}`)),
    'business receipts:',
    ...(business.length === 0
      ? ['  none']
      : business.map(
          (b) => `  ${iso(b.at)}  ${b.lineage.kind.padEnd(11)}  ${b.id}  retry ${b.retryGeneration}  response sha256 ${b.responseDigest}`,
        )),
  ];
  for (const line of lines) writeLine(io.stdout, line);
  return Exit.ok;
}

async function move(ledger: Ledger, id: string, action: ManualAction, json: boolean, io: CliIo): Promise<number> {
  const { state, steps: done } = await moveByHand(ledger, id, action, Date.now());
  if (json) writeLine(io.stdout, JSON.stringify({ ok: true, id, state, steps: done }, null, 2));
  else for (const d of done) writeLine(io.stdout, `${id}: ${d.from} → ${d.to} (${d.trigger})`);
  return Exit.ok;
}

function refuse(io: CliIo, json: boolean, error: unknown): number {
  if (!GuardError.is(error)) throw error;
  if (json) writeLine(io.stdout, JSON.stringify({ ok: false, code: error.code, message: error.message }));
  else writeLine(io.stderr, `${error.code}: ${error.message}`);
  return error.code === GuardCode.ledgerUnavailable ? Exit.usage : Exit.blocked;
}

function summary(f: StoredNavigation) {
  return {
    id: f.record.id,
    state: f.flow.state,
    updatedAt: f.flow.updatedAt,
    server: f.record.server,
    target: { scheme: f.record.target.scheme, host: f.record.target.host, port: f.record.target.port },
    createdAt: f.record.createdAt,
    expiresAt: f.record.expiresAt,
  };
}

function hostOf(f: StoredNavigation): string {
  const t = f.record.target;
  return `${t.scheme}://${t.host}${t.port === null ? '' : `:${t.port}`}`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Server-chosen text on a terminal: control and bidi characters are shown escaped, never obeyed. */
function printable(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu,
    (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`,
  );
}
