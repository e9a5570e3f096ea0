import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryIo } from './memory-io.js';

async function run(args: string[], options: { stdin?: string; isTTY?: boolean; cwd?: string } = {}) {
  const m = memoryIo(options);
  const code = await main(args, m.io);
  return { code, out: m.stdout(), err: m.stderr() };
}

const kennwort = JSON.stringify({
  message: 'Log in',
  requestedSchema: { type: 'object', properties: { kennwort: { type: 'string', title: 'Kennwort' }, project: { type: 'string' } } },
});

describe('policy init', () => {
  it('creates the parent folders and writes a $schema that resolves from the file', async () => {
    const home = mkdtempSync(join(tmpdir(), 'meg-init-'));
    const file = join(home, '.config', 'mcp', 'elicitation-policy.json');
    const r = await run(['policy', 'init', file]);
    expect(r.code, r.err).toBe(0);
    const written = JSON.parse(readFileSync(file, 'utf8')) as { $schema: string };
    const schemaFile = resolve(dirname(file), written.$schema);
    expect(existsSync(schemaFile), schemaFile).toBe(true);
    expect(JSON.parse(readFileSync(schemaFile, 'utf8'))).toHaveProperty('title', 'mcp-elicitation-guard policy');
    expect((await run(['policy', 'validate', file])).code).toBe(0);
  });
});

describe('policy errors say what to fix', () => {
  const dir = mkdtempSync(join(tmpdir(), 'meg-policy-'));
  it('suggests the nearest known key', async () => {
    writeFileSync(
      join(dir, 'typo.json'),
      JSON.stringify({ from: { onSensitive: 'audit' }, servers: { gh: { url: { allowedHost: [] } } } }),
    );
    const r = await run(['policy', 'validate', join(dir, 'typo.json')]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('at (top level): unknown key "from" (did you mean `form`?)');
    expect(r.err).toContain('at $.servers.gh.url: unknown key "allowedHost" (did you mean `allowedHosts`?)');
  });

  it('gives line and column for a JSON syntax error', async () => {
    writeFileSync(join(dir, 'syntax.json'), '{\n  "form": {\n    "enabled": true,\n  }\n}\n');
    const r = await run(['policy', 'validate', join(dir, 'syntax.json')]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/policy is not valid JSON at line 4, column 3: /u);
    // The proxy reports the same error when it loads the file.
    const proxy = await run(['proxy', '--policy', join(dir, 'syntax.json'), '--', process.execPath, '-e', '']);
    expect(proxy.code).toBe(2);
    expect(proxy.err).toContain('line 4, column 3');
  });
});

describe('audit-schema on a terminal and in a pipe', () => {
  it('prints a readable report on a TTY', async () => {
    const r = await run(['audit-schema'], { stdin: kennwort, isTTY: true });
    expect(r.code).toBe(1);
    expect(r.out).toContain('BLOCK');
    expect(r.out).toMatch(/field "kennwort" +.*credential.* name:kennwort, title:kennwort/u);
    expect(r.out).toContain('[error] E_SENSITIVE_FIELD: field "kennwort" asks for a credential');
    expect(r.out).toMatch(/schema digest: sha256:[0-9a-f]{64}/u);
    expect(() => JSON.parse(r.out)).toThrow();
  });

  it('prints JSON with --json on a TTY, and JSON in a pipe as documented', async () => {
    for (const [args, isTTY] of [
      [['audit-schema', '--json'], true],
      [['audit-schema'], false],
    ] as const) {
      const r = await run([...args], { stdin: kennwort, isTTY });
      expect(r.code).toBe(1);
      const parsed = JSON.parse(r.out) as Record<string, unknown>;
      expect(Object.keys(parsed)).toEqual(['verdict', 'fields', 'findings']);
      expect(parsed.verdict).toBe('block');
    }
  });
});
