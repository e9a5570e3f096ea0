import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CallToolRequestSchema, type McpError, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createElicitationHandler } from '../../src/adapters/sdk/handler.js';
import type { GuardEvent } from '../../src/core/events.js';
import { createAuditLog, type AuditLog } from '../../src/audit/log.js';
import { createGuard, type Guard } from '../../src/core/guard.js';
import { SqliteLedger } from '../../src/ledger/sqlite.js';
import { scriptedUi } from '../adapters/sdk/harness.js';
import { collectInvariants } from './support/invariants.js';
import { connectHost, type Host } from './support/sdk.js';

// Fault: credentials reach a log. A server plants token-shaped values in every field it can fill
// (messages, URLs, titles, descriptions, defaults, option titles, -32042 entries and error
// messages), and the user types one into a form answer. After the session, the audit log, the
// events the host received and every row of the SQLite ledger are searched: no token is there.

// Obviously fake, format-valid values: each matches a rule of src/secrets.
const TOKENS = {
  github: 'ghp_Fake0Token1For2Fault3Suite4Only5Xy',
  aws: 'AKIAFAKEFAULTSUITE01',
  slack: 'xoxb-000000000-fault-suite-fake',
  stripe: 'sk_test_FakeFaultSuiteKey0123456789',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmYXVsdC1zdWl0ZSJ9.ZmFrZS1zaWduYXR1cmUtZm9yLXRlc3RzLW9ubHk',
  typedByUser: 'ghp_UserTyped0Secret1Into2AForm3Field4',
};
const T = TOKENS;

const invariants = collectInvariants('credentials-in-logs');
let dir: string;
let auditPath: string;
let ledgerPath: string;
let ledger: SqliteLedger;
let log: AuditLog;
let guard: Guard;
let host: Host;
const events: GuardEvent[] = [];
const serverSaw: unknown[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'meg-faults-logs-'));
  auditPath = join(dir, 'audit.jsonl');
  ledgerPath = join(dir, 'ledger.sqlite');
  ledger = await SqliteLedger.open(ledgerPath);
  log = createAuditLog(auditPath);
  guard = invariants.guard(
    createGuard({
      ledger,
      subject: 'user-7',
      onEvent: (e) => {
        events.push(e);
        log.write(e);
      },
    }),
  );
  const ui = scriptedUi({
    url: () => 'accept',
    // The user pastes a token into an ordinary text field.
    form: () => ({ action: 'accept', content: { project: T.typedByUser, region: 'eu' } }),
  });
  host = await connectHost(guard, {
    onElicit: createElicitationHandler(guard, ui, { opener: () => {}, ledger }),
    configure: (server) =>
      server.setRequestHandler(CallToolRequestSchema, async (request) => {
        if (request.params.name === 'required') {
          throw new UrlElicitationRequiredError(
            [
              {
                mode: 'url',
                message: `Authorize with ${T.slack}`,
                url: `https://accounts.example.com/authorize?access_token=${T.github}`,
                elicitationId: 'req-1',
              },
              { mode: 'url', message: `Confirm, key ${T.aws}`, url: 'https://accounts.example.com/confirm?flow=2', elicitationId: 'req-2' },
            ],
            `URL elicitation required (${T.stripe})`,
          );
        }
        return { content: [{ type: 'text' as const, text: 'ok' }] };
      }),
  });
  const ask = async (params: Parameters<typeof host.server.elicitInput>[0]) => {
    try {
      serverSaw.push(await host.server.elicitInput(params));
    } catch (error) {
      serverSaw.push(error);
    }
  };
  // A form whose every server-filled text carries a token (a token-shaped default or title makes
  // the field look like it asks for a credential).
  await ask({
    mode: 'form',
    message: `Set up the project. Debug: ${T.jwt}`,
    requestedSchema: {
      type: 'object',
      properties: {
        project: { type: 'string', title: `Project (${T.aws})`, description: `Shown with ${T.slack}`, default: T.stripe },
        region: {
          type: 'string',
          title: 'Region',
          oneOf: [
            { const: 'eu', title: `Europe ${T.github}` },
            { const: 'us', title: 'US' },
          ],
        },
      },
    },
  });
  // An ordinary form; the user types a token into it.
  await ask({
    mode: 'form',
    message: 'Name the project',
    requestedSchema: {
      type: 'object',
      properties: { project: { type: 'string', title: 'Project' }, region: { type: 'string', enum: ['eu', 'us'] } },
    },
  });
  // A form asking for a credential, with tokens in its message and title.
  await ask({
    mode: 'form',
    message: `Paste your key (old one was ${T.stripe})`,
    requestedSchema: { type: 'object', properties: { api_key: { type: 'string', title: `API key, e.g. ${T.github}` } } },
  });
  // A URL with a token in it, and a clean URL whose message carries one.
  await ask({
    mode: 'url',
    message: `Sign in ${T.jwt}`,
    url: `https://accounts.example.com/login?session=${T.jwt}`,
    elicitationId: 'url-1',
  });
  await ask({
    mode: 'url',
    message: `Connect, reference ${T.aws} ${T.slack}`,
    url: 'https://accounts.example.com/connect?flow=3',
    elicitationId: 'url-2',
  });
  // A -32042 list with a tokened URL, tokened messages and a tokened error message.
  await host.client.callTool({ name: 'required', arguments: {} }).catch((e: unknown) => serverSaw.push(e));
  await guard.flush();
  await log.close();
});

afterAll(async () => {
  await host.close();
  await ledger.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every text value of every row of every table of the ledger file. */
function ledgerText(): string {
  const db = new Database(ledgerPath, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    return tables.map(({ name }) => JSON.stringify(db.prepare(`SELECT * FROM "${name}"`).all())).join('\n');
  } finally {
    db.close();
  }
}

describe('fault: credentials reaching a log', () => {
  it('ran the planted session: the guard judged each message as it should', () => {
    const [planted, form, credentialForm, tokenUrl, cleanUrl, required] = serverSaw;
    expect((planted as McpError).data).toMatchObject({ code: 'E_SENSITIVE_FIELD' });
    // The answer with a typed token is withheld: the server gets cancel.
    expect(form).toEqual({ action: 'cancel' });
    expect(events.find((e) => e.type === 'content.withheld')).toMatchObject({ code: 'E_SECRET_IN_CONTENT', fields: ['project'] });
    expect((credentialForm as McpError).data).toMatchObject({ code: 'E_SENSITIVE_FIELD' });
    expect((tokenUrl as McpError).data).toMatchObject({ code: 'E_URL_BLOCKED' });
    expect(cleanUrl).toEqual({ action: 'accept' });
    expect(required).toBeInstanceOf(UrlElicitationRequiredError);
    expect((required as UrlElicitationRequiredError).elicitations.map((e) => e.elicitationId)).toEqual(['req-2']);
    expect(guard.metrics()).toMatchObject({ contentWithheld: 1, sensitiveFieldsBlocked: 2, sensitiveFieldsLetThrough: 0 });
    invariants.expectGuard(guard);
  });

  it('wrote no token to the audit log, the events or the ledger', () => {
    const audit = readFileSync(auditPath, 'utf8');
    const rows = ledgerText();
    expect(audit.split('\n').filter(Boolean)).toHaveLength(events.length);
    expect(rows).toContain('consentReceipt.v1');
    const written = { audit, events: JSON.stringify(events), ledger: rows };
    const found: string[] = [];
    for (const [where, text] of Object.entries(written)) {
      for (const [name, token] of Object.entries(TOKENS)) if (text.includes(token)) found.push(`${name} in ${where}`);
    }
    expect(found).toEqual([]);
  });
});
