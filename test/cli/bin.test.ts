import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built package, as `npm ci` (prepare → build) leaves it.
const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'dist', 'cli', 'main.js');

function run(args: string[], input?: string) {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run "npm run build" (npm ci does it through prepare)`);
  return spawnSync(process.execPath, [bin, ...args], { input, encoding: 'utf8', cwd: root });
}

describe('the built CLI', () => {
  it('prints its version and help', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(run(['--version'])).toMatchObject({ status: 0, stdout: `${pkg.version}\n` });
    const help = run(['--help']);
    expect(help.status).toBe(0);
    for (const command of ['audit-schema', 'policy']) expect(help.stdout).toContain(command);
  });

  it('exits 2 with usage on an unknown command', () => {
    const result = run(['frobnicate']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('unknown command "frobnicate"');
  });

  it('writes an example policy that validates', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'meg-bin-')), 'policy.json');
    expect(run(['policy', 'init', file]).status).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toHaveProperty('$schema');
    expect(run(['policy', 'validate', file]).status).toBe(0);
  });

  it('resolves the package exports map with its types and the policy schema', async () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      exports: Record<string, { types?: string; import?: string } | string>;
    };
    const main = pkg.exports['.'] as { types: string; import: string };
    expect(existsSync(join(root, main.types))).toBe(true);
    const api = (await import(join(root, main.import))) as Record<string, unknown>;
    for (const name of ['createGuard', 'guardTransport', 'auditForm', 'analyzeUrl', 'parsePolicy', 'loadPolicy', 'policyJsonSchema'])
      expect(typeof api[name]).not.toBe('undefined');
    expect(JSON.parse(readFileSync(join(root, 'policy.schema.json'), 'utf8'))).toHaveProperty('properties.form');
    const server = pkg.exports['./server'] as { types: string; import: string };
    expect(existsSync(join(root, server.types))).toBe(true);
    const serverApi = (await import(join(root, server.import))) as Record<string, unknown>;
    for (const name of [
      'ConnectService',
      'connectHandler',
      'EncryptedFileVault',
      'MemorySecretVault',
      'createCompletionRegistry',
      'urlElicitationRequired',
      'revalidateFormContent',
      'LeaseBook',
      'MemoryApprovalQueue',
    ])
      expect(typeof serverApi[name]).toBe('function');
    const ui = pkg.exports['./ui'] as { types: string; import: string };
    expect(existsSync(join(root, ui.types))).toBe(true);
    const uiApi = (await import(join(root, ui.import))) as Record<string, unknown>;
    for (const name of ['startQueryPage', 'createQueryPageApp', 'runAction']) expect(typeof uiApi[name]).toBe('function');
    // Loading the whole built package (word lists and lexicon included) on a loaded machine can take seconds.
  }, 30_000);
});
