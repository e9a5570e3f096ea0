/**
 * The durable records of URL mode: what was navigated (NavigationRecord), what the user was shown
 * and decided (ConsentReceipt), and which answer accepted an original operation (BusinessReceipt).
 *
 * Nothing secret is stored: the per-navigation state nonce only as its digest, the URL only as
 * scheme, host, port and a digest of the whole URL (never a path, query or fragment), the server's
 * message with URLs cut to their host and secret-shaped words removed. Builders validate their input and
 * return frozen objects; `parse*` validate what comes back from storage.
 */
import { domainToASCII } from 'node:url';
import { z } from 'zod';
import { canonicalDigest, sha256Hex } from '../protocol/digest.js';
import { GuardCode, GuardError } from '../protocol/errors.js';
import type { JsonRpcId } from '../protocol/jsonrpc.js';
import type { Finding } from '../protocol/verdict.js';
import { findSecretOrToken } from '../secrets/index.js';

export const NAVIGATION_SCHEMA = 'elicitationNavigation.v1';
export const CONSENT_SCHEMA = 'consentReceipt.v1';
export const BUSINESS_SCHEMA = 'businessReceipt.v1';

/** Injected I/O: the guard's clock (ms since the epoch) and its source of random bytes. */
export interface RecordDeps {
  readonly clock: () => number;
  readonly random: (bytes: number) => Uint8Array;
}

/** Which server asked: the host's key for it, and `serverInfo.name` / `.version` from `initialize`. */
export interface NavigationServer {
  readonly key: string | null;
  readonly name: string | null;
  readonly version: string | null;
}

/** Where the user was sent, without anything that could carry a secret. */
export interface NavigationTarget {
  /** Lower case, without the colon: `https`. */
  readonly scheme: string;
  /** The full host name in ASCII (Punycode for IDNs), IPv6 in brackets. */
  readonly host: string;
  readonly port: number | null;
  /** sha256 (hex) of the URL exactly as the server sent it. */
  readonly urlDigest: string;
}

/** Allowed redirect targets (ASCII host names) or `"any"`. */
export type RedirectPolicy = readonly string[] | 'any';

export interface NavigationRecord {
  readonly schema: typeof NAVIGATION_SCHEMA;
  /** The guard's own id for this navigation (`nav_…`); the server's id is `elicitationId`. */
  readonly id: string;
  readonly elicitationId: string;
  readonly server: NavigationServer;
  /** The verified user subject supplied by the host; `null` when the host has none. */
  readonly subject: string | null;
  /** The digest of the request this elicitation belongs to; `null` when the server did not tie it to one. */
  readonly originalRequestDigest: string | null;
  readonly target: NavigationTarget;
  readonly redirectPolicy: RedirectPolicy;
  /** The server's message, scrubbed of URL queries and secret-shaped words. */
  readonly purpose: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** sha256 (hex) of the state nonce; the nonce itself is handed to the caller once and never stored. */
  readonly stateNonceDigest: string;
  readonly sessionGeneration: number;
}

export type ConsentDecision = 'accept' | 'decline' | 'cancel';

export interface ConsentReceipt {
  readonly schema: typeof CONSENT_SCHEMA;
  readonly id: string;
  readonly navigationId: string;
  /** sha256 over the canonical JSON of what the user was shown (see `shownDigest`). */
  readonly shownDigest: string;
  readonly decision: ConsentDecision;
  readonly at: number;
}

/**
 * The kinds of lineage, as stored in business receipts: `nested` (an elicitation inside a request in
 * flight) and `error-retry` (the `-32042` URL-elicitation-required lineage). Their rules live in
 * `LINEAGE_RULES` (lineage.ts).
 */
/** `input-required`: the rounds of one original operation in spec 2026-07-28 (see flow/input-required.ts). */
export const LINEAGE_KINDS = Object.freeze(['nested', 'error-retry', 'input-required'] as const);
export type LineageKind = (typeof LINEAGE_KINDS)[number];

/** One original operation. At most one business receipt may ever exist per key. */
export interface LineageKey {
  readonly session: string;
  readonly kind: LineageKind;
  readonly originalRequestDigest: string;
}

export interface BusinessReceipt {
  readonly schema: typeof BUSINESS_SCHEMA;
  readonly id: string;
  readonly lineage: LineageKey;
  /** The JSON-RPC id of the request whose response was accepted (the original or a retry). */
  readonly requestId: JsonRpcId;
  /** 0 for the original request, n for its n-th retry. */
  readonly retryGeneration: number;
  /** The consent receipts of the URL requirements this acceptance rests on. */
  readonly requirementReceiptIds: readonly string[];
  /** sha256 (hex) of the accepted response. */
  readonly responseDigest: string;
  readonly at: number;
}

/** What the user saw when deciding: the URL display model, the findings and the server's message. */
export interface ShownToUser {
  readonly display: unknown;
  readonly findings: readonly Finding[];
  readonly message: string;
}

const MAX_ID = 1024;
const MAX_PURPOSE = 2000;
const NONCE_BYTES = 32;
const ID_BYTES = 16;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 digest in lower-case hex');
const epochMs = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const text = z.string().min(1).max(MAX_ID);
const asciiHost = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, 'an ASCII host name');
const jsonRpcId = z.union([z.string().max(MAX_ID), z.number().finite()]);

const serverSchema = z.strictObject({
  key: text.nullable(),
  name: z.string().max(MAX_ID).nullable(),
  version: z.string().max(MAX_ID).nullable(),
});
const redirectPolicySchema = z.union([z.literal('any'), z.array(asciiHost).max(1000)]);

const navigationSchema = z
  .strictObject({
    schema: z.literal(NAVIGATION_SCHEMA),
    id: text,
    elicitationId: text,
    server: serverSchema,
    subject: text.nullable(),
    originalRequestDigest: sha256.nullable(),
    target: z.strictObject({
      scheme: z.string().regex(/^[a-z][a-z0-9+.-]*$/, 'a lower-case URL scheme'),
      host: asciiHost,
      port: z.number().int().min(0).max(65535).nullable(),
      urlDigest: sha256,
    }),
    redirectPolicy: redirectPolicySchema,
    purpose: z.string().max(MAX_PURPOSE + 1),
    createdAt: epochMs,
    expiresAt: epochMs,
    stateNonceDigest: sha256,
    sessionGeneration: count,
  })
  .refine((r) => r.expiresAt > r.createdAt, { message: 'expiresAt must be after createdAt', path: ['expiresAt'] });

const decisionSchema = z.enum(['accept', 'decline', 'cancel']);

const consentSchema = z.strictObject({
  schema: z.literal(CONSENT_SCHEMA),
  id: text,
  navigationId: text,
  shownDigest: sha256,
  decision: decisionSchema,
  at: epochMs,
});

const lineageKindSchema = z.enum(LINEAGE_KINDS);
const lineageKeySchema = z.strictObject({ session: text, kind: lineageKindSchema, originalRequestDigest: sha256 });

const businessSchema = z.strictObject({
  schema: z.literal(BUSINESS_SCHEMA),
  id: text,
  lineage: lineageKeySchema,
  requestId: jsonRpcId,
  retryGeneration: count,
  requirementReceiptIds: z.array(text).max(1000),
  responseDigest: sha256,
  at: epochMs,
});

const findingSchema = z.object({
  code: z.string(),
  severity: z.enum(['error', 'warning', 'info']),
  message: z.string(),
  field: z.string().optional(),
});

const navigationInputSchema = z.strictObject({
  elicitationId: text,
  server: serverSchema,
  subject: text.nullable(),
  originalRequestDigest: sha256.nullable(),
  url: z.string().min(1).max(65536),
  redirectPolicy: z.union([z.literal('any'), z.array(z.string().min(1).max(255)).max(1000)]),
  purpose: z.string().max(65536),
  ttlMs: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  sessionGeneration: count,
});

const consentInputSchema = z.strictObject({
  navigationId: text,
  shown: z.strictObject({ display: z.unknown(), findings: z.array(findingSchema), message: z.string() }),
  decision: decisionSchema,
});

const businessInputSchema = z.strictObject({
  lineage: lineageKeySchema,
  requestId: jsonRpcId,
  retryGeneration: count,
  requirementReceiptIds: z.array(text).max(1000),
  responseDigest: sha256,
});

export interface NavigationInput {
  readonly elicitationId: string;
  readonly server: NavigationServer;
  readonly subject: string | null;
  readonly originalRequestDigest: string | null;
  /** The URL as the server sent it: only its scheme, host, port and digest are kept. */
  readonly url: string;
  /** Allowed redirect hosts (Unicode names are stored in ASCII) or `"any"`. */
  readonly redirectPolicy: RedirectPolicy;
  /** The server's `message`. */
  readonly purpose: string;
  /** How long the navigation may stay pending (the policy's `completion.ttlSeconds` in ms). */
  readonly ttlMs: number;
  readonly sessionGeneration: number;
}
export interface ConsentInput {
  readonly navigationId: string;
  readonly shown: ShownToUser;
  readonly decision: ConsentDecision;
}
export interface BusinessInput {
  readonly lineage: LineageKey;
  readonly requestId: JsonRpcId;
  readonly retryGeneration: number;
  readonly requirementReceiptIds: readonly string[];
  readonly responseDigest: string;
}

function invalid(what: string, error: z.ZodError): GuardError {
  // Paths and zod's messages only: they name the field and the rule, never the value.
  const issues = error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  return new GuardError(GuardCode.recordInvalid, `invalid ${what}: ${issues.join('; ')}`, { issues });
}

function validate<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalid(what, result.error);
  return result.data;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

function randomBytesOf(deps: RecordDeps, n: number): Uint8Array {
  const bytes = deps.random(n);
  if (!(bytes instanceof Uint8Array) || bytes.length !== n) {
    throw new GuardError(GuardCode.internal, `random(${n}) must return ${n} bytes`);
  }
  return bytes;
}

function randomId(prefix: string, deps: RecordDeps): string {
  return prefix + Buffer.from(randomBytesOf(deps, ID_BYTES)).toString('hex');
}

/**
 * An id that sorts by creation time, as UUIDv7 does: the millisecond clock (12 hex digits) then 80
 * random bits, in the same 32 hex digits as `randomId`. Stores index receipts by id; ids that arrive
 * in order land next to each other instead of on a random page each.
 */
function timeOrderedId(prefix: string, at: number, deps: RecordDeps): string {
  return prefix + at.toString(16).padStart(12, '0').slice(-12) + Buffer.from(randomBytesOf(deps, ID_BYTES - 6)).toString('hex');
}

function now(deps: RecordDeps): number {
  return validate(epochMs, deps.clock(), 'clock reading');
}

function targetOf(url: string): NavigationTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new GuardError(GuardCode.recordInvalid, 'invalid navigation: url is not a URL');
  }
  const host = parsed.hostname.toLowerCase();
  if (host === '' || !/^[\x21-\x7e]+$/.test(host)) {
    throw new GuardError(GuardCode.recordInvalid, 'invalid navigation: url has no ASCII host');
  }
  return {
    scheme: parsed.protocol.slice(0, -1).toLowerCase(),
    host,
    port: parsed.port === '' ? null : Number(parsed.port),
    urlDigest: sha256Hex(url),
  };
}

function redirectPolicyOf(policy: RedirectPolicy): RedirectPolicy {
  if (policy === 'any') return 'any';
  return [
    ...new Set(
      policy.map((host) => {
        const ascii = domainToASCII(host.trim().toLowerCase());
        if (ascii === '')
          throw new GuardError(GuardCode.recordInvalid, 'invalid navigation: redirectPolicy holds a name that is not a host name');
        return ascii;
      }),
    ),
  ];
}

const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()[\]{}]+/giu;

function hostOnly(match: string): string {
  try {
    const url = new URL(match);
    const rest = url.pathname.length > 1 || url.search !== '' || url.hash !== '' ? '/[…]' : '';
    return `${url.protocol}//${url.hostname}${url.port === '' ? '' : ':' + url.port}${rest}`;
  } catch {
    return '[url]';
  }
}

function scrubWord(word: string): string {
  if (word.trim() === '') return word;
  const core = word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}=]+$/gu, '');
  return findSecretOrToken(word) === null && findSecretOrToken(core) === null ? word : '[redacted]';
}

/**
 * The server's message as it may be stored: URLs keep only scheme, host and port (userinfo, path,
 * query and fragment become `/[…]`), secret-shaped words become `[redacted]`, and the text is
 * capped in length. What the user saw verbatim is covered by the consent receipt's digest.
 */
export function scrubPurpose(message: string): string {
  const scrubbed = message.replace(URL_IN_TEXT, hostOnly).split(/(\s+)/u).map(scrubWord).join('');
  return scrubbed.length > MAX_PURPOSE ? scrubbed.slice(0, MAX_PURPOSE) + '…' : scrubbed;
}

/**
 * Builds the navigation record for one URL elicitation and its state nonce. The nonce (base64url,
 * 32 random bytes) is returned here once; the record keeps only its sha256.
 *
 * @example const { record, stateNonce } = createNavigation({ ...input, url }, { clock, random })
 */
export function createNavigation(
  input: NavigationInput,
  deps: RecordDeps,
): { readonly record: NavigationRecord; readonly stateNonce: string } {
  const checked = validate(navigationInputSchema, input, 'navigation');
  const createdAt = now(deps);
  const stateNonce = Buffer.from(randomBytesOf(deps, NONCE_BYTES)).toString('base64url');
  const record = {
    schema: NAVIGATION_SCHEMA,
    id: randomId('nav_', deps),
    elicitationId: checked.elicitationId,
    server: checked.server,
    subject: checked.subject,
    originalRequestDigest: checked.originalRequestDigest,
    target: targetOf(checked.url),
    redirectPolicy: redirectPolicyOf(checked.redirectPolicy),
    purpose: scrubPurpose(checked.purpose),
    createdAt,
    expiresAt: createdAt + checked.ttlMs,
    stateNonceDigest: sha256Hex(stateNonce),
    sessionGeneration: checked.sessionGeneration,
  };
  return Object.freeze({ record: parseNavigationRecord(record), stateNonce });
}

/** True when `nonce` is the state nonce this record was created with. */
export function matchesStateNonce(record: NavigationRecord, nonce: string): boolean {
  return sha256Hex(nonce) === record.stateNonceDigest;
}

/** sha256 over the canonical JSON of `{ display, findings, message }`. */
export function shownDigest(shown: ShownToUser): string {
  try {
    return canonicalDigest({ display: shown.display ?? null, findings: shown.findings, message: shown.message });
  } catch {
    throw new GuardError(GuardCode.recordInvalid, 'invalid consent receipt: what was shown has no JSON form');
  }
}

export function createConsentReceipt(input: ConsentInput, deps: RecordDeps): ConsentReceipt {
  const checked = validate(consentInputSchema, input, 'consent receipt');
  return parseConsentReceipt({
    schema: CONSENT_SCHEMA,
    id: randomId('cr_', deps),
    navigationId: checked.navigationId,
    shownDigest: shownDigest(input.shown),
    decision: checked.decision,
    at: now(deps),
  });
}

export function createBusinessReceipt(input: BusinessInput, deps: RecordDeps): BusinessReceipt {
  const checked = validate(businessInputSchema, input, 'business receipt');
  const at = now(deps);
  return parseBusinessReceipt({ schema: BUSINESS_SCHEMA, id: timeOrderedId('br_', at, deps), ...checked, at });
}

/** A stable string for a lineage key, for maps keyed by lineage. */
export function lineageKeyString(key: LineageKey): string {
  return JSON.stringify([key.session, key.kind, key.originalRequestDigest]);
}

// Records this module built or parsed. They are deep-frozen, so they cannot have changed since:
// parsing one again (as every ledger write does) costs a lookup instead of a validation.
const vetted = new WeakSet<object>();

function vet<T extends object>(schema: z.ZodType, value: unknown, what: string): T {
  if (typeof value === 'object' && value !== null && vetted.has(value)) return value as T;
  const record = deepFreeze(validate(schema, value, what)) as T;
  vetted.add(record);
  return record;
}

export function parseLineageKey(value: unknown): LineageKey {
  return vet(lineageKeySchema, value, 'lineage key');
}

export function parseNavigationRecord(value: unknown): NavigationRecord {
  return vet(navigationSchema, value, 'navigation record');
}

export function parseConsentReceipt(value: unknown): ConsentReceipt {
  return vet(consentSchema, value, 'consent receipt');
}

export function parseBusinessReceipt(value: unknown): BusinessReceipt {
  return vet(businessSchema, value, 'business receipt');
}
