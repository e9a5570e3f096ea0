/**
 * Two `SecretVault`s: one in memory for tests, one an encrypted JSON file for small deployments.
 * Every record of the file is sealed with AES-256-GCM under a key from the environment, with the
 * (subject, provider) pair as additional authenticated data, so a record copied under another user
 * fails authentication instead of handing that user someone else's token.
 */

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { GuardCode, GuardError } from '../protocol/errors.js';
import type { SecretVault, StoredSecret } from './vault-types.js';
import { ServerCode } from './errors.js';

/** The environment variable `EncryptedFileVault.fromEnv` reads: base64 of 32 random bytes. */
export const VAULT_KEY_ENV = 'MCP_GUARD_VAULT_KEY';

export const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const FILE_VERSION = 1;
const AAD_LABEL = 'mcp-elicitation-guard/vault/v1';

export function requireName(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new GuardError(GuardCode.input, `the vault needs a non-empty string ${what}`);
  return value;
}

function optionalString(value: unknown, what: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new GuardError(GuardCode.input, `stored secret field ${what} must be a string when present`);
  return value;
}

/**
 * A frozen copy holding only the fields `StoredSecret` defines, so a caller's extra properties
 * (or a later mutation of its object) never reach storage. Messages name fields, never values.
 */
export function cleanSecret(secret: unknown): StoredSecret {
  if (typeof secret !== 'object' || secret === null || Array.isArray(secret))
    throw new GuardError(GuardCode.input, 'a stored secret must be an object');
  const s = secret as Record<string, unknown>;
  const tokenType = requireName(s['tokenType'], 'tokenType');
  const accessToken = requireName(s['accessToken'], 'accessToken');
  const issuer = requireName(s['issuer'], 'issuer');
  const refreshToken = optionalString(s['refreshToken'], 'refreshToken');
  const scope = optionalString(s['scope'], 'scope');
  const providerSubject = optionalString(s['providerSubject'], 'providerSubject');
  const expiresAt = s['expiresAt'];
  if (expiresAt !== undefined && (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt))) {
    throw new GuardError(GuardCode.input, 'stored secret field expiresAt must be a finite number of milliseconds when present');
  }
  const clean: { -readonly [K in keyof StoredSecret]: StoredSecret[K] } = { tokenType, accessToken, issuer };
  if (refreshToken !== undefined) clean.refreshToken = refreshToken;
  if (expiresAt !== undefined) clean.expiresAt = expiresAt as number;
  if (scope !== undefined) clean.scope = scope;
  if (providerSubject !== undefined) clean.providerSubject = providerSubject;
  return Object.freeze(clean);
}

// A JSON array keeps the pair unambiguous: ("a:b", "c") and ("a", "b:c") never share a key.
function pairKey(subject: string, provider: string): string {
  return JSON.stringify([subject, provider]);
}

/**
 * A vault in process memory. Same contract as `EncryptedFileVault`; loses everything on exit.
 *
 * @example
 *   const vault = new MemorySecretVault();
 *   await vault.put('user-1', 'github', { tokenType: 'Bearer', accessToken: '…', issuer: 'https://github.com' });
 */
export class MemorySecretVault implements SecretVault {
  readonly #secrets = new Map<string, StoredSecret>();

  async put(subject: string, provider: string, secret: StoredSecret): Promise<void> {
    const key = pairKey(requireName(subject, 'subject'), requireName(provider, 'provider'));
    this.#secrets.set(key, cleanSecret(secret));
  }

  async get(subject: string, provider: string): Promise<StoredSecret | null> {
    return this.#secrets.get(pairKey(requireName(subject, 'subject'), requireName(provider, 'provider'))) ?? null;
  }

  async delete(subject: string, provider: string): Promise<void> {
    this.#secrets.delete(pairKey(requireName(subject, 'subject'), requireName(provider, 'provider')));
  }
}

/** One sealed record as it sits in the file. Subject and provider are identifiers, not secrets. */
export interface SealedRecord {
  readonly subject: string;
  readonly provider: string;
  readonly iv: string;
  readonly tag: string;
  readonly data: string;
}

interface VaultFile {
  readonly version: typeof FILE_VERSION;
  readonly records: readonly SealedRecord[];
}

function aad(subject: string, provider: string): Buffer {
  return Buffer.from(JSON.stringify([AAD_LABEL, subject, provider]), 'utf8');
}

function corrupt(reason: string): GuardError<ServerCode> {
  return new GuardError(ServerCode.vaultCorrupt, `the vault file is not a valid vault (${reason})`);
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodeField(record: Record<string, unknown>, name: 'iv' | 'tag' | 'data', bytes: number | null): Buffer {
  const text = record[name];
  if (typeof text !== 'string' || !BASE64.test(text) || text.length % 4 !== 0) throw corrupt(`record field ${name} is not base64`);
  const buf = Buffer.from(text, 'base64');
  if (bytes !== null && buf.length !== bytes) throw corrupt(`record field ${name} has the wrong length`);
  return buf;
}

function parseRecord(value: unknown): SealedRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw corrupt('a record is not an object');
  const r = value as Record<string, unknown>;
  if (typeof r['subject'] !== 'string' || r['subject'] === '' || typeof r['provider'] !== 'string' || r['provider'] === '')
    throw corrupt('a record lacks its subject or provider');
  decodeField(r, 'iv', IV_BYTES);
  decodeField(r, 'tag', TAG_BYTES);
  decodeField(r, 'data', null);
  return { subject: r['subject'], provider: r['provider'], iv: r['iv'] as string, tag: r['tag'] as string, data: r['data'] as string };
}

function parseVaultFile(text: string): VaultFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw corrupt('not JSON');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw corrupt('not an object');
  const file = raw as Record<string, unknown>;
  if (file['version'] !== FILE_VERSION) throw corrupt('unknown version');
  if (!Array.isArray(file['records'])) throw corrupt('no records list');
  const records = file['records'].map(parseRecord);
  const seen = new Set<string>();
  for (const r of records) {
    const key = pairKey(r.subject, r.provider);
    if (seen.has(key)) throw corrupt('two records for one subject and provider');
    seen.add(key);
  }
  return { version: FILE_VERSION, records };
}

/** Seals one secret for (subject, provider): AES-256-GCM, a random 12-byte IV, the pair as AAD. */
export function seal(key: Buffer, subject: string, provider: string, secret: StoredSecret): SealedRecord {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(subject, provider));
  const data = Buffer.concat([cipher.update(JSON.stringify(secret), 'utf8'), cipher.final()]);
  return { subject, provider, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
}

/** Opens a sealed record; a record moved to another subject or provider, or a wrong key, fails authentication. */
export function unseal(key: Buffer, record: SealedRecord): StoredSecret {
  let plain: string;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(record.iv, 'base64'), { authTagLength: TAG_BYTES });
    decipher.setAAD(aad(record.subject, record.provider));
    decipher.setAuthTag(Buffer.from(record.tag, 'base64'));
    plain = Buffer.concat([decipher.update(Buffer.from(record.data, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new GuardError(
      ServerCode.vaultAuthFailed,
      'a vault record failed authentication: the file was altered, a record was moved to another subject or provider, or the key is wrong',
    );
  }
  try {
    return cleanSecret(JSON.parse(plain));
  } catch {
    // Authenticated but not a secret: written by something else under this key. Say so without the plaintext.
    throw corrupt('an authenticated record does not hold a stored secret');
  }
}

function ioError(error: unknown, action: 'read' | 'write'): GuardError<ServerCode> {
  const code = (error as { code?: unknown }).code;
  return new GuardError(
    ServerCode.vaultUnavailable,
    `the vault file cannot be ${action === 'read' ? 'read' : 'written'}${typeof code === 'string' ? ` (${code})` : ''}`,
  );
}

/**
 * Reads a vault key from its base64 text. Errors never echo the text.
 *
 * @example
 *   parseVaultKey(randomBytes(32).toString('base64')) // → a 32-byte Buffer
 */
export function parseVaultKey(text: string | undefined): Buffer {
  const trimmed = text?.trim() ?? '';
  if (trimmed === '')
    throw new GuardError(
      ServerCode.vaultKeyMissing,
      `${VAULT_KEY_ENV} is not set; generate one with: node -e "console.log(require('node:crypto').randomBytes(32).toString('base64'))"`,
    );
  // base64url is accepted too, since key generators differ; Buffer.from would silently skip bad characters, so check first.
  const standard = trimmed.replace(/-/g, '+').replace(/_/g, '/');
  const padded = standard.length % 4 === 0 ? standard : standard + '='.repeat(4 - (standard.length % 4));
  if (!BASE64.test(padded) || padded.length % 4 !== 0) throw new GuardError(ServerCode.vaultKeyInvalid, `${VAULT_KEY_ENV} is not base64`);
  const key = Buffer.from(padded, 'base64');
  if (key.length !== KEY_BYTES)
    throw new GuardError(
      ServerCode.vaultKeyInvalid,
      `${VAULT_KEY_ENV} must decode to exactly ${KEY_BYTES} bytes (it decodes to ${key.length})`,
    );
  return key;
}

/**
 * A vault in one JSON file, each secret sealed with AES-256-GCM (random 12-byte IV per record, the
 * subject and provider bound as AAD). Every operation re-reads the file and authenticates every
 * record, so a tampered file or a wrong key fails loudly rather than mixing keys or returning
 * garbage. Writes go to a 0600 temp file that is renamed over the old one. Operations within one
 * instance are serialised; separate processes writing the same file are not coordinated.
 *
 * @example
 *   const vault = EncryptedFileVault.fromEnv('/var/lib/my-server/vault.json');
 *   await vault.put(subject, 'github', secret);
 */
export class EncryptedFileVault implements SecretVault {
  readonly path: string;
  readonly #key: Buffer;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(path: string, key: Uint8Array) {
    if (typeof path !== 'string' || path === '') throw new GuardError(GuardCode.input, 'the vault needs a file path');
    if (!(key instanceof Uint8Array) || key.length !== KEY_BYTES)
      throw new GuardError(ServerCode.vaultKeyInvalid, `the vault key must be exactly ${KEY_BYTES} bytes`);
    this.path = path;
    this.#key = Buffer.from(key);
  }

  /** A vault whose key comes from `MCP_GUARD_VAULT_KEY` (base64 of 32 bytes) in `env`. */
  static fromEnv(path: string, env: Readonly<Record<string, string | undefined>> = process.env): EncryptedFileVault {
    return new EncryptedFileVault(path, parseVaultKey(env[VAULT_KEY_ENV]));
  }

  async put(subject: string, provider: string, secret: StoredSecret): Promise<void> {
    requireName(subject, 'subject');
    requireName(provider, 'provider');
    const clean = cleanSecret(secret);
    return this.#serial(async () => {
      const file = await this.#load();
      const records = file.records.filter((r) => r.subject !== subject || r.provider !== provider);
      records.push(seal(this.#key, subject, provider, clean));
      await this.#store({ version: FILE_VERSION, records });
    });
  }

  async get(subject: string, provider: string): Promise<StoredSecret | null> {
    requireName(subject, 'subject');
    requireName(provider, 'provider');
    return this.#serial(async () => {
      const file = await this.#load();
      const record = file.records.find((r) => r.subject === subject && r.provider === provider);
      return record === undefined ? null : unseal(this.#key, record);
    });
  }

  async delete(subject: string, provider: string): Promise<void> {
    requireName(subject, 'subject');
    requireName(provider, 'provider');
    return this.#serial(async () => {
      const file = await this.#load();
      const records = file.records.filter((r) => r.subject !== subject || r.provider !== provider);
      if (records.length !== file.records.length) await this.#store({ version: FILE_VERSION, records });
    });
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #load(): Promise<VaultFile> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return { version: FILE_VERSION, records: [] };
      throw ioError(error, 'read');
    }
    const file = parseVaultFile(text);
    // Authenticating every record, not just the one asked for, means a wrong key is caught before a write mixes keys in one file.
    for (const record of file.records) unseal(this.#key, record);
    return file;
  }

  async #store(file: VaultFile): Promise<void> {
    const temp = `${this.path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const handle = await open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(JSON.stringify(file), 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, this.path);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw ioError(error, 'write');
    }
  }
}
