/**
 * Server-side bookkeeping for URL elicitations: who each one was issued to (verified subject and
 * MCP session), the `-32042` error that asks for them, and the completion notification that goes
 * back only to the session that started the elicitation (spec §1.7, §1.8, §1.11).
 */

import type { ElicitRequestURLParams, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { checkContent } from '../form/content.js';
import type { ContentCheck } from '../form/types.js';
import { GuardCode, GuardError } from '../protocol/errors.js';
import { findSecret } from '../secrets/index.js';
import { ServerCode } from './errors.js';

/**
 * SDK v1's types module when it is installed (an optional peer): `urlElicitationRequired` builds
 * its `UrlElicitationRequiredError`, the class a v1 server passes on as `-32042`. Loaded as the same
 * ES module the server imports, so its `instanceof` checks hold. Without it the rest of the
 * companion (SDK v2's `ConnectRounds` included) works.
 */
const sdkV1: typeof import('@modelcontextprotocol/sdk/types.js') | null = await import('@modelcontextprotocol/sdk/types.js').catch(
  (error: unknown) => {
    if ((error as { code?: unknown })?.code === 'ERR_MODULE_NOT_FOUND') return null;
    throw error;
  },
);

/**
 * Sends `notifications/elicitation/complete` for one elicitation on one session: what
 * `server.createElicitationCompletionNotifier(elicitationId)` returns for the SDK `Server` bound
 * to the session that issued it.
 */
export type CompletionNotifier = () => Promise<void>;

export interface IssuedElicitationInput {
  readonly elicitationId: string;
  /** The MCP session the elicitation was sent on; the completion goes there and nowhere else. */
  readonly sessionId: string;
  /** The verified user subject (e.g. the `sub` of the MCP access token), never a client-supplied name. */
  readonly subject: string;
  readonly notify: CompletionNotifier;
}

/** What the registry knows about an open elicitation; the notifier is not handed out. */
export interface IssuedElicitation {
  readonly elicitationId: string;
  readonly sessionId: string;
  readonly subject: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
}

export interface CompleteOptions {
  /**
   * The verified subject of whoever finished the out-of-band step. When given and different from
   * the subject the elicitation was issued to, nothing is sent and the elicitation stays open.
   */
  readonly subject?: string;
}

export interface CompletionRegistry {
  /** Records an issued URL elicitation. Throws `E_DUPLICATE_ELICITATION` for an id open or recently completed. */
  register(entry: IssuedElicitationInput): IssuedElicitation;
  /** The open elicitation with that id, or null (unknown, completed, expired or forgotten). */
  lookup(elicitationId: string): IssuedElicitation | null;
  /**
   * Sends the completion notification to the issuing session, at most once. Returns false, sending
   * nothing, for unknown, completed, expired or forgotten ids and for a subject mismatch. If the
   * notifier rejects, the id is still spent (completion is a hint, never resent) and the error propagates.
   */
  completeUrlElicitation(elicitationId: string, options?: CompleteOptions): Promise<boolean>;
  /** Drops an open elicitation without notifying (e.g. the user cancelled). True if it was open. */
  forget(elicitationId: string): boolean;
  /** Drops every open elicitation of a session that closed. Returns how many. */
  forgetSession(sessionId: string): number;
  /** How many elicitations are open. */
  readonly size: number;
}

export interface CompletionRegistryOptions {
  /** Milliseconds since the epoch; injected so expiry is testable. */
  readonly clock?: () => number;
  /** How long an elicitation stays completable. Default 10 minutes. */
  readonly ttlMs?: number;
  /** Cap on open elicitations; past it the oldest is dropped. Default 10 000. */
  readonly maxOpen?: number;
}

interface Entry {
  readonly info: IssuedElicitation;
  readonly notify: CompletionNotifier;
}

function positiveInteger(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new GuardError(GuardCode.input, `${what} must be a positive integer`);
  return value;
}

function nonEmpty(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new GuardError(GuardCode.input, `${what} must be a non-empty string`);
  return value;
}

class MemoryCompletionRegistry implements CompletionRegistry {
  readonly #clock: () => number;
  readonly #ttlMs: number;
  readonly #maxOpen: number;
  readonly #open = new Map<string, Entry>();
  // Recently completed ids, so a replayed registration cannot reopen one; bounded like the open table.
  readonly #spent = new Map<string, number>();

  constructor(options: CompletionRegistryOptions) {
    this.#clock = options.clock ?? Date.now;
    this.#ttlMs = positiveInteger(options.ttlMs ?? 10 * 60_000, 'ttlMs');
    this.#maxOpen = positiveInteger(options.maxOpen ?? 10_000, 'maxOpen');
  }

  get size(): number {
    this.#sweep(this.#clock());
    return this.#open.size;
  }

  register(entry: IssuedElicitationInput): IssuedElicitation {
    const elicitationId = nonEmpty(entry.elicitationId, 'elicitationId');
    const sessionId = nonEmpty(entry.sessionId, 'sessionId');
    const subject = nonEmpty(entry.subject, 'subject');
    if (typeof entry.notify !== 'function')
      throw new GuardError(GuardCode.input, 'notify must be the completion notifier of the issuing session');
    const now = this.#clock();
    this.#sweep(now);
    if (this.#open.has(elicitationId) || this.#spent.has(elicitationId)) {
      throw new GuardError(
        ServerCode.duplicateElicitation,
        'that elicitation id is already open or was recently completed; elicitation ids must be unique',
      );
    }
    while (this.#open.size >= this.#maxOpen) this.#dropOldest(this.#open);
    const info: IssuedElicitation = Object.freeze({ elicitationId, sessionId, subject, issuedAt: now, expiresAt: now + this.#ttlMs });
    this.#open.set(elicitationId, { info, notify: entry.notify });
    return info;
  }

  lookup(elicitationId: string): IssuedElicitation | null {
    this.#sweep(this.#clock());
    return this.#open.get(elicitationId)?.info ?? null;
  }

  async completeUrlElicitation(elicitationId: string, options?: CompleteOptions): Promise<boolean> {
    const now = this.#clock();
    this.#sweep(now);
    const entry = this.#open.get(elicitationId);
    if (entry === undefined) return false;
    if (options?.subject !== undefined && options.subject !== entry.info.subject) return false;
    // Spend the id before awaiting, so two concurrent completions cannot both send.
    this.#open.delete(elicitationId);
    this.#markSpent(elicitationId, now);
    await entry.notify();
    return true;
  }

  forget(elicitationId: string): boolean {
    const had = this.#open.delete(elicitationId);
    if (had) this.#markSpent(elicitationId, this.#clock());
    return had;
  }

  forgetSession(sessionId: string): number {
    const now = this.#clock();
    let count = 0;
    for (const [id, entry] of this.#open) {
      if (entry.info.sessionId !== sessionId) continue;
      this.#open.delete(id);
      this.#markSpent(id, now);
      count++;
    }
    return count;
  }

  #markSpent(elicitationId: string, now: number): void {
    while (this.#spent.size >= this.#maxOpen) this.#dropOldest(this.#spent);
    this.#spent.set(elicitationId, now + this.#ttlMs);
  }

  #dropOldest(table: Map<string, unknown>): void {
    const oldest = table.keys().next();
    if (!oldest.done) table.delete(oldest.value);
  }

  // Maps keep insertion order and every entry gets the same TTL, so expired entries are at the front.
  #sweep(now: number): void {
    for (const [id, entry] of this.#open) {
      if (entry.info.expiresAt > now) break;
      this.#open.delete(id);
      this.#markSpent(id, now);
    }
    for (const [id, until] of this.#spent) {
      if (until > now) break;
      this.#spent.delete(id);
    }
  }
}

/**
 * A registry of issued URL elicitations, bounded in size and time.
 *
 * @example
 *   const registry = createCompletionRegistry();
 *   registry.register({ elicitationId, sessionId, subject, notify: server.createElicitationCompletionNotifier(elicitationId) });
 *   // later, in the OAuth callback, once the browser user is verified as `subject`:
 *   await registry.completeUrlElicitation(elicitationId, { subject });
 */
export function createCompletionRegistry(options: CompletionRegistryOptions = {}): CompletionRegistry {
  return new MemoryCompletionRegistry(options);
}

/** One URL elicitation a server lists in a `-32042` error. `mode` may be left out; it is always `url`. */
export interface UrlElicitationEntry {
  readonly mode?: 'url';
  readonly elicitationId: string;
  readonly url: string;
  readonly message: string;
}

export interface UrlElicitationRequiredOptions {
  /** The error message. Default the SDK's `URL elicitation(s) required`. */
  readonly message?: string;
  /** Allow `http:` for loopback hosts (localhost, 127.0.0.1, [::1]) during development. Default false. */
  readonly allowHttpLoopback?: boolean;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function invalidEntry(index: number, reason: string): GuardError<ServerCode> {
  return new GuardError(ServerCode.urlElicitationInvalid, `elicitation ${index}: ${reason}`, { index });
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The checks of one `-32042` entry (mode, id, message, https or loopback http, no secrets in the URL); throws `E_URL_ELICITATION_INVALID`. */
export function checkEntry(value: unknown, index: number, allowHttpLoopback: boolean): ElicitRequestURLParams {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidEntry(index, 'must be an object');
  const entry = value as Record<string, unknown>;
  if (entry['mode'] !== undefined && entry['mode'] !== 'url')
    throw invalidEntry(index, 'only url-mode elicitations may be listed in a -32042 error');
  if (typeof entry['elicitationId'] !== 'string' || entry['elicitationId'] === '')
    throw invalidEntry(index, 'needs a non-empty elicitationId');
  if (typeof entry['message'] !== 'string' || entry['message'].trim() === '')
    throw invalidEntry(index, 'needs a non-empty message telling the user why');
  if (typeof entry['url'] !== 'string') throw invalidEntry(index, 'needs a url');
  let url: URL;
  try {
    url = new URL(entry['url']);
  } catch {
    throw invalidEntry(index, 'url is not an absolute URL');
  }
  const httpAllowed = allowHttpLoopback && url.protocol === 'http:' && LOOPBACK.has(url.hostname);
  if (url.protocol !== 'https:' && !httpAllowed) throw invalidEntry(index, 'url must use https');
  if (url.username !== '' || url.password !== '') throw invalidEntry(index, 'url must not carry credentials');
  // Spec §1.11: no credentials and no pre-authenticated links in the URL sent to the client.
  for (const [name, v] of url.searchParams) {
    const match = findSecret(v);
    if (match !== null)
      throw invalidEntry(
        index,
        `url query parameter ${JSON.stringify(name)} holds a value shaped like a secret (${match.rule}); send a connect link, ` +
          `not a pre-authenticated one`,
      );
  }
  if (url.hash !== '' && findSecret(safeDecode(url.hash.slice(1))) !== null)
    throw invalidEntry(index, 'url fragment holds a value shaped like a secret');
  return { mode: 'url', elicitationId: entry['elicitationId'], url: entry['url'], message: entry['message'] };
}

/**
 * The SDK's `UrlElicitationRequiredError` (`-32042`) for the given elicitations, after checking
 * each is a well-formed url-mode entry with a unique id and an https URL. Throws
 * `E_URL_ELICITATION_INVALID` otherwise; the message names the entry's index, never its URL.
 *
 * @example
 *   throw urlElicitationRequired([{ elicitationId: id, url: `https://mcp.example.com/connect?elicitationId=${id}`, message:
 *     'Connect your GitHub account' }]);
 */
export function urlElicitationRequired(
  elicitations: readonly UrlElicitationEntry[],
  options: UrlElicitationRequiredOptions = {},
): UrlElicitationRequiredError {
  if (!Array.isArray(elicitations) || elicitations.length === 0)
    throw new GuardError(ServerCode.urlElicitationInvalid, 'a -32042 error must list at least one URL elicitation');
  const checked = elicitations.map((e, i) => checkEntry(e, i, options.allowHttpLoopback === true));
  const ids = new Set<string>();
  checked.forEach((e, i) => {
    if (ids.has(e.elicitationId)) throw invalidEntry(i, 'repeats an elicitationId listed before it');
    ids.add(e.elicitationId);
  });
  if (sdkV1 === null)
    throw new GuardError(
      GuardCode.input,
      'urlElicitationRequired builds the SDK v1 -32042 error: install @modelcontextprotocol/sdk (with SDK v2, use ConnectRounds)',
    );
  const { UrlElicitationRequiredError } = sdkV1;
  return options.message === undefined
    ? new UrlElicitationRequiredError(checked)
    : new UrlElicitationRequiredError(checked, options.message);
}

/**
 * The server's own check of an accepted form answer against the schema it asked for: shapes,
 * `required`, unknown keys and secret-shaped values. A client's check never replaces this one.
 * Findings name fields, never values.
 *
 * @example
 *   const check = revalidateFormContent(result.content, requestedSchema);
 *   if (!check.ok) throw new McpError(ErrorCode.InvalidParams, 'the form answer does not match the schema');
 */
export function revalidateFormContent(content: unknown, requestedSchema: unknown): ContentCheck {
  return checkContent(content, requestedSchema);
}
