import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GuardCode, GuardError } from '../../src/protocol/errors.js';
import { EncryptedFileVault, MemorySecretVault, parseVaultKey, VAULT_KEY_ENV } from '../../src/server/vault.js';
import type { StoredSecret } from '../../src/server/vault-types.js';
import { ServerCode } from '../../src/server/errors.js';

// Obviously fake, format-valid values: the file must never hold them in the clear.
const ACCESS = 'gho_FAKEvaultTESTaccessTOKEN0123456789ab';
const REFRESH = 'ghr_FAKEvaultTESTrefreshTOKEN0123456789a';

const secret: StoredSecret = {
  tokenType: 'Bearer',
  accessToken: ACCESS,
  refreshToken: REFRESH,
  expiresAt: 1_900_000_000_000,
  scope: 'repo read:user',
  issuer: 'https://github.com/login/oauth',
};

async function guardCodeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    if (GuardError.is(error)) return error.code;
    throw error;
  }
  throw new Error('expected a GuardError');
}

let dir: string;
let path: string;
let key: Buffer;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-guard-vault-'));
  path = join(dir, 'vault.json');
  key = randomBytes(32);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('EncryptedFileVault', () => {
  it('round-trips a secret through the file, across instances with the same key', async () => {
    await new EncryptedFileVault(path, key).put('alice', 'github', secret);
    const reopened = new EncryptedFileVault(path, key);
    expect(await reopened.get('alice', 'github')).toEqual(secret);
    expect(await reopened.get('alice', 'gitlab')).toBeNull();
    expect(await reopened.get('bob', 'github')).toBeNull();
  });

  it('overwrites, deletes, and keeps other records untouched', async () => {
    const vault = new EncryptedFileVault(path, key);
    await vault.put('alice', 'github', secret);
    await vault.put('bob', 'github', { ...secret, accessToken: 'gho_FAKEbobTOKEN000000000000000000000000' });
    await vault.put('alice', 'github', { ...secret, scope: 'repo' });
    expect((await vault.get('alice', 'github'))?.scope).toBe('repo');
    await vault.delete('alice', 'github');
    expect(await vault.get('alice', 'github')).toBeNull();
    expect((await vault.get('bob', 'github'))?.accessToken).toBe('gho_FAKEbobTOKEN000000000000000000000000');
    await vault.delete('nobody', 'github');
  });

  it('keeps every record when puts race inside one instance', async () => {
    const vault = new EncryptedFileVault(path, key);
    await Promise.all(Array.from({ length: 8 }, (_, i) => vault.put(`user-${i}`, 'github', secret)));
    for (let i = 0; i < 8; i++) expect(await vault.get(`user-${i}`, 'github')).toEqual(secret);
  });

  it('writes a 0600 file with no plaintext token in its bytes and no temp file left behind', async () => {
    const vault = new EncryptedFileVault(path, key);
    await vault.put('alice', 'github', secret);
    await vault.put('alice', 'gitlab', secret);
    const bytes = await readFile(path);
    for (const plain of [ACCESS, REFRESH, 'repo read:user']) {
      expect(bytes.includes(Buffer.from(plain, 'utf8'))).toBe(false);
      expect(bytes.includes(Buffer.from(plain, 'utf8').toString('base64'))).toBe(false);
    }
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['vault.json']);
  });

  it('uses a fresh IV per record, so equal secrets do not look equal on disk', async () => {
    const vault = new EncryptedFileVault(path, key);
    await vault.put('alice', 'github', secret);
    await vault.put('bob', 'github', secret);
    const file = JSON.parse(await readFile(path, 'utf8')) as { records: { iv: string; data: string }[] };
    expect(file.records).toHaveLength(2);
    expect(file.records[0]!.iv).not.toBe(file.records[1]!.iv);
    expect(file.records[0]!.data).not.toBe(file.records[1]!.data);
  });

  it('refuses a record moved to another subject or provider (AAD binding)', async () => {
    await new EncryptedFileVault(path, key).put('alice', 'github', secret);
    const file = JSON.parse(await readFile(path, 'utf8')) as { version: number; records: Record<string, string>[] };
    const copied = { ...file, records: [{ ...file.records[0]!, subject: 'mallory' }] };
    await writeFile(path, JSON.stringify(copied));
    expect(await guardCodeOf(new EncryptedFileVault(path, key).get('mallory', 'github'))).toBe(ServerCode.vaultAuthFailed);

    const otherProvider = { ...file, records: [{ ...file.records[0]!, provider: 'gitlab' }] };
    await writeFile(path, JSON.stringify(otherProvider));
    expect(await guardCodeOf(new EncryptedFileVault(path, key).get('alice', 'gitlab'))).toBe(ServerCode.vaultAuthFailed);
  });

  it.each(['data', 'tag', 'iv'] as const)('refuses a file whose record %s was altered', async (field) => {
    await new EncryptedFileVault(path, key).put('alice', 'github', secret);
    const file = JSON.parse(await readFile(path, 'utf8')) as { version: number; records: Record<string, string>[] };
    const bytes = Buffer.from(file.records[0]![field]!, 'base64');
    bytes[0] = bytes[0]! ^ 0x01;
    file.records[0]![field] = bytes.toString('base64');
    await writeFile(path, JSON.stringify(file));
    const vault = new EncryptedFileVault(path, key);
    expect(await guardCodeOf(vault.get('alice', 'github'))).toBe(ServerCode.vaultAuthFailed);
    // A write must not paper over the damage either.
    const before = await readFile(path, 'utf8');
    expect(await guardCodeOf(vault.put('bob', 'github', secret))).toBe(ServerCode.vaultAuthFailed);
    expect(await readFile(path, 'utf8')).toBe(before);
  });

  it('refuses to read or extend a file written under another key', async () => {
    await new EncryptedFileVault(path, key).put('alice', 'github', secret);
    const wrong = new EncryptedFileVault(path, randomBytes(32));
    expect(await guardCodeOf(wrong.get('alice', 'github'))).toBe(ServerCode.vaultAuthFailed);
    expect(await guardCodeOf(wrong.get('bob', 'github'))).toBe(ServerCode.vaultAuthFailed);
    expect(await guardCodeOf(wrong.put('bob', 'github', secret))).toBe(ServerCode.vaultAuthFailed);
    expect(await new EncryptedFileVault(path, key).get('alice', 'github')).toEqual(secret);
  });

  it.each([
    ['not JSON', '{"version":1,'],
    ['an unknown version', '{"version":2,"records":[]}'],
    [
      'a record with a short IV',
      JSON.stringify({
        version: 1,
        records: [{ subject: 'a', provider: 'b', iv: 'AAAA', tag: Buffer.alloc(16).toString('base64'), data: 'AAAA' }],
      }),
    ],
    [
      'a record without a subject',
      JSON.stringify({
        version: 1,
        records: [{ provider: 'b', iv: Buffer.alloc(12).toString('base64'), tag: Buffer.alloc(16).toString('base64'), data: 'AAAA' }],
      }),
    ],
  ])('reports %s as a corrupt vault', async (_name, text) => {
    await writeFile(path, text);
    expect(await guardCodeOf(new EncryptedFileVault(path, key).get('a', 'b'))).toBe(ServerCode.vaultCorrupt);
  });

  it('reports a path it cannot read or write as unavailable', async () => {
    expect(await guardCodeOf(new EncryptedFileVault(join(dir, 'missing-dir', 'vault.json'), key).put('alice', 'github', secret))).toBe(
      ServerCode.vaultUnavailable,
    );
    expect(await guardCodeOf(new EncryptedFileVault(dir, key).get('alice', 'github'))).toBe(ServerCode.vaultUnavailable);
    expect(await readdir(dir)).toEqual([]);
  });

  it('rejects a malformed secret without echoing its values', async () => {
    const vault = new EncryptedFileVault(path, key);
    const bad = {
      tokenType: 'Bearer',
      accessToken: ACCESS,
      issuer: 'https://github.com',
      expiresAt: 'tomorrow',
    } as unknown as StoredSecret;
    await expect(vault.put('alice', 'github', bad)).rejects.toSatisfy(
      (e: unknown) => GuardError.is(e) && e.code === GuardCode.input && !e.message.includes(ACCESS),
    );
    expect(await guardCodeOf(vault.put('', 'github', secret))).toBe(GuardCode.input);
  });
});

describe('EncryptedFileVault.fromEnv and parseVaultKey', () => {
  it('reads a base64 key from MCP_GUARD_VAULT_KEY', async () => {
    const env = { [VAULT_KEY_ENV]: key.toString('base64') };
    await EncryptedFileVault.fromEnv(path, env).put('alice', 'github', secret);
    expect(await new EncryptedFileVault(path, key).get('alice', 'github')).toEqual(secret);
    expect(parseVaultKey(key.toString('base64url'))).toEqual(key);
  });

  it('fails clearly when the key is missing', () => {
    expect(() => EncryptedFileVault.fromEnv(path, {})).toThrowError(expect.objectContaining({ code: ServerCode.vaultKeyMissing }));
    expect(() => EncryptedFileVault.fromEnv(path, { [VAULT_KEY_ENV]: '  ' })).toThrowError(
      expect.objectContaining({ code: ServerCode.vaultKeyMissing }),
    );
  });

  it.each([
    ['16 bytes', randomBytes(16).toString('base64')],
    ['33 bytes', randomBytes(33).toString('base64')],
    ['not base64', 'this is not a key!!'],
  ])('fails clearly for a key of %s, without echoing it', (_name, text) => {
    let caught: unknown;
    try {
      EncryptedFileVault.fromEnv(path, { [VAULT_KEY_ENV]: text });
    } catch (error) {
      caught = error;
    }
    expect(GuardError.is(caught) && caught.code === ServerCode.vaultKeyInvalid).toBe(true);
    expect((caught as Error).message).not.toContain(text);
  });

  it('refuses a raw key of the wrong length', () => {
    expect(() => new EncryptedFileVault(path, randomBytes(24))).toThrowError(expect.objectContaining({ code: ServerCode.vaultKeyInvalid }));
  });
});

describe('MemorySecretVault', () => {
  it('round-trips, isolates subjects and providers, and deletes', async () => {
    const vault = new MemorySecretVault();
    await vault.put('alice', 'github', secret);
    expect(await vault.get('alice', 'github')).toEqual(secret);
    expect(await vault.get('bob', 'github')).toBeNull();
    // A naive "subject:provider" key would make these two the same slot.
    await vault.put('a:b', 'c', secret);
    expect(await vault.get('a', 'b:c')).toBeNull();
    await vault.delete('alice', 'github');
    expect(await vault.get('alice', 'github')).toBeNull();
  });

  it('stores a copy of only the StoredSecret fields', async () => {
    const vault = new MemorySecretVault();
    const input = { ...secret, password: 'not-a-field' } as StoredSecret & { password: string };
    await vault.put('alice', 'github', input);
    (input as { accessToken: string }).accessToken = 'changed afterwards';
    const stored = await vault.get('alice', 'github');
    expect(stored).toEqual(secret);
    expect(Object.isFrozen(stored)).toBe(true);
  });
});
