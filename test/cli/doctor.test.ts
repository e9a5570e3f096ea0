import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';
import { freshDatabase, postgresUrl } from '../ledger/postgres-support.js';
import { memoryIo } from './memory-io.js';

const fixtures = fileURLToPath(new URL('../../fixtures/hosts/', import.meta.url));

async function run(args: string[], dir: string) {
  const m = memoryIo({ cwd: dir });
  // A home of its own: no real host config is read, the default ledger lives in the scratch folder.
  const io = { ...m.io, home: dir, env: { PATH: process.env.PATH, XDG_STATE_HOME: join(dir, 'state') } } as CliIo;
  const code = await main(args, io);
  return { code, out: m.stdout(), lines: m.stdout().trim().split('\n') };
}

function installed(): { dir: string; config: string; policy: string } {
  const dir = mkdtempSync(join(tmpdir(), 'meg-doctor-'));
  const config = join(dir, 'claude_desktop_config.json');
  copyFileSync(join(fixtures, 'claude_desktop_config.json'), config);
  const policy = join(dir, 'policy.json');
  writeFileSync(policy, JSON.stringify({ servers: {} }, null, 2));
  return { dir, config, policy };
}

describe('doctor', () => {
  it('passes on an installed host config, one line per check', async () => {
    const { dir, config, policy } = installed();
    expect((await run(['install', '--host', 'claude-desktop', '--config', config, '--policy', policy], dir)).code).toBe(0);
    const r = await run(['doctor', '--host', 'claude-desktop', '--config', config], dir);
    expect(r.code, r.out).toBe(0);
    expect(r.lines[0]).toMatch(/^ok {4}node v\d+/u);
    expect(r.out).toMatch(/^ok {4}better-sqlite3 \d+\.\d+\.\d+ loads/mu);
    expect(r.out).toContain(`ok    ledger ${join(dir, 'state', 'mcp-elicitation-guard', 'ledger.sqlite')} is writable and opens`);
    expect(r.out).toContain(`ok    policy ${policy} validates (3 server entries)`);
    expect(r.out).toContain(`ok    Claude Desktop "filesystem": --server "filesystem" is in ${policy}`);
    expect(r.lines.at(-1)).toBe('doctor: every check passed');
  });

  it('fails when a --server key of the config is not in its policy, and says which', async () => {
    const { dir, config, policy } = installed();
    await run(['install', '--host', 'claude-desktop', '--config', config, '--policy', policy], dir);
    writeFileSync(policy, JSON.stringify({ servers: { everythin: {}, filesystem: {}, 'local-tool': {} } }));
    const r = await run(['doctor', '--host', 'claude-desktop', '--config', config], dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      `FAIL  Claude Desktop "everything": --server "everything" is not a key of ${policy}'s "servers" (did you mean "everythin"?)`,
    );
    expect(r.lines.at(-1)).toBe('doctor: 1 check failed');
  });

  it('fails on an invalid policy and on a ledger path that cannot be written', async () => {
    const { dir } = installed();
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ from: {} }));
    writeFileSync(join(dir, 'a-file'), '');
    const r = await run(['doctor', '--policy', 'bad.json', '--ledger', join(dir, 'a-file', 'ledger.sqlite')], dir);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^FAIL {2}ledger .*a-file.*(ENOTDIR|EEXIST)/mu);
    expect(r.out).toMatch(/^FAIL {2}policy E_POLICY_INVALID: .*unknown key "from"/mu);
    expect(r.lines.at(-1)).toBe('doctor: 2 checks failed');
    expect(readFileSync(join(dir, 'bad.json'), 'utf8')).toBe('{"from":{}}');
  });
});

describe('doctor --ledger postgres://', () => {
  it('fails with E_LEDGER_UNAVAILABLE when the database does not answer, without the password in the line', async () => {
    const { createServer } = await import('node:net');
    // A port nothing listens on: bound, then closed.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise((resolve) => server.close(resolve));
    const dir = mkdtempSync(join(tmpdir(), 'meg-doctor-pg-'));
    const r = await run(['doctor', '--ledger', `postgres://guard:hunter2-secret@127.0.0.1:${port}/guard`], dir);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^FAIL {2}ledger: E_LEDGER_UNAVAILABLE: .*127\.0\.0\.1/mu);
    expect(r.out).not.toContain('hunter2-secret');
    expect(r.lines.at(-1)).toBe('doctor: 1 check failed');
  }, 30_000);

  it.skipIf(postgresUrl === null)(
    'reports a reachable database, its schema step and durable commits',
    async () => {
      const database = await freshDatabase();
      try {
        const dir = mkdtempSync(join(tmpdir(), 'meg-doctor-pg-'));
        const r = await run(['doctor', '--ledger', database.url], dir);
        expect(r.code, r.out).toBe(0);
        expect(r.out).toMatch(/^ok {4}ledger .* answers: PostgreSQL \d+\.\d+.*, schema mcp_elicitation_guard at step (\d+) of \1$/mu);
        expect(r.out).toContain('ok    ledger: synchronous_commit = on');
      } finally {
        await database.drop();
      }
    },
    30_000,
  );
});
