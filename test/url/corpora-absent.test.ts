/** A clone without the shared corpora: the measurements that need them skip with one line, unless CI=true. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const absent = join(mkdtempSync(join(tmpdir(), 'meg-no-corpora-')), 'corpora') + '/';

function run(args: string[], ci: boolean) {
  const env: NodeJS.ProcessEnv = { ...process.env, MCP_GUARD_CORPORA_DIR: absent, FORCE_COLOR: '0', NO_COLOR: '1' };
  delete env.CI;
  delete env.VITEST;
  delete env.VITEST_WORKER_ID;
  delete env.VITEST_POOL_ID;
  // Only the corpus file runs: the PostgreSQL global setup (which CI=true makes strict) needs a URL, never a database.
  if (ci)
    Object.assign(env, {
      CI: 'true',
      MCP_GUARD_TEST_POSTGRES_URL: env.MCP_GUARD_TEST_POSTGRES_URL ?? 'postgres://unused@127.0.0.1:9/unused',
    });
  const r = spawnSync(process.execPath, args, { cwd: root, env, encoding: 'utf8', timeout: 240_000 });
  return { status: r.status, out: r.stdout + r.stderr };
}

const vitest = [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', 'test/url/corpora.test.ts', '--reporter', 'default'];

describe('without ../shared/corpora', () => {
  it('the corpus test file skips with one clear line', () => {
    const r = run(vitest, false);
    expect(r.status, r.out).toBe(0);
    expect(
      r.out.match(
        /shared corpora not found .*: the false-rejection measurements of test\/url\/corpora\.test\.ts skipped \(required when CI=true\)/gu,
      ),
    ).toHaveLength(1);
    expect(r.out).toMatch(/skipped/u);
  }, 240_000);

  it('fails under CI=true', () => {
    const r = run(vitest, true);
    expect(r.status).not.toBe(0);
    expect(r.out).toContain('but CI=true requires them');
  }, 240_000);

  it('npm run gate reports the line it could not measure and passes the rest', () => {
    const r = run(['--import', 'tsx', 'bench/gate.ts'], false);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toMatch(/legitimate domains falsely rejected +not measured +< 0\.1 % +SKIP/u);
    expect(r.out).toContain('gate: every measured line passed; 1 line was not measured (see SKIP above)');
  }, 240_000);
});
