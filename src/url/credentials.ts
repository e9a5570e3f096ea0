/**
 * Credentials carried in a URL: a URL ends up in browser history, proxy and server logs and
 * `Referer` headers, so a token in it is a token leaked (the MCP spec forbids credentials and
 * pre-authenticated URLs in URL-mode elicitation). The rules:
 * - a parameter *named* like a credential, in the query or the fragment, whatever its value looks
 *   like (`access_token=demo` leaks as surely as a random one); only names that also name
 *   references (`key`, `session`, `hash`, `ticket`) need a key-shaped value, and `token` spares
 *   the public order ids payment pages put there (PayPal's checkout token);
 * - an OAuth authorization *response* handed to the user (`code` with `state` or `iss`, or on a
 *   callback path; tokens in the fragment): a pre-authenticated bearer;
 * - a path segment after a segment that names a secret (`/password/<value>`, `/reset/<token>`);
 * - any value, parameter name, path segment or host label *shaped* like a known secret (JWT,
 *   API-key prefixes), also inside base64url JSON;
 * - the URL shapes that are themselves secrets (Slack, Discord, Teams, Telegram webhooks).
 *
 * OAuth/OIDC authorization requests pass: `state`, `nonce` and `code_challenge` are random by
 * design and not credentials, `client_id` is public, a signed `request` object (JAR) is not a
 * secret. A value with a well-known secret *prefix* still blocks wherever it sits.
 */
import { findSecret, looksRandomToken, mayHoldSecret, mayHoldSecretCounting, type SecretMatch } from '../secrets/index.js';
import type { CredentialNameClass, UrlPart } from './parts.js';
import { CENSUS_CLASS, CENSUS_COUNTED, CENSUS_STRIDE } from './personal.js';

export interface CredentialHit {
  /** The part that carries it; null for the URL as a whole (webhooks) or a host label. */
  readonly part: UrlPart | null;
  /** Why it counts: the rule or the parameter name class, never the value. */
  readonly rule: string;
}

/** Names whose any value (but a flag word) is a secret. */
const ALWAYS_SECRET = new Set([
  'password',
  'passwd',
  'pwd',
  'pass',
  'passphrase',
  'secret',
  'clientsecret',
  'apisecret',
  'appsecret',
  'privatekey',
  'codeverifier',
]);
/**
 * Credential names whose value is a credential whatever it looks like (issue 12: "regardless of
 * the value's shape"): the token, key and session names of OAuth, API keys and web sessions.
 */
const ANY_VALUE_CREDENTIALS = new Set([
  'accesstoken',
  'idtoken',
  'refreshtoken',
  'authtoken',
  'apitoken',
  'apikey',
  'accesskey',
  'secretkey',
  'bearer',
  'jwt',
  'token',
  'sessiontoken',
  'sessionid',
  'sid',
  'jsessionid',
  'phpsessid',
  'aspsessionid',
  'oauthtoken',
  'oauthverifier',
  'otp',
  'totp',
  'mfacode',
  'xamzsecuritytoken',
  'subscriptionkey',
  'samlresponse',
  'samlart',
  'wresult',
  'personalaccesstoken',
  'privatetoken',
  'usertoken',
]);
// Public order ids payment pages carry as `token` (PayPal checkout: `EC-...` or 17 upper-case
// characters), which are references, not credentials.
const ORDER_TOKEN = /^(?:EC-[A-Z0-9]{17}|[A-Z0-9]{17})$/;
/** Flag-like values of a password-named parameter (`?password=reset`, `?secret=true`) are not secrets. */
const FLAG_VALUES = new Set([
  '',
  'true',
  'false',
  'yes',
  'no',
  'on',
  'off',
  '0',
  '1',
  'reset',
  'forgot',
  'change',
  'new',
  'update',
  'edit',
  'expired',
]);

/** Names that say "credential": a value that looks like a token is one. */
const STRONG_NAMES = new Set([
  'accesstoken',
  'idtoken',
  'idtokenhint',
  'refreshtoken',
  'authtoken',
  'apitoken',
  'apikey',
  'accesskey',
  'secretkey',
  'bearer',
  'jwt',
  'authorization',
  'credential',
  'credentials',
  'xamzsignature',
  'xamzsecuritytoken',
  'xamzcredential',
  'xgoogsignature',
  'xgoogcredential',
  'subscriptionkey',
  'sig',
  'signature',
  'samlresponse',
  'samlart',
  'wresult',
  'sessiontoken',
  'sessionid',
  'jsessionid',
  'phpsessid',
  'aspsessionid',
  'sid',
  'oauthtoken',
  'oauthverifier',
  'otp',
  'totp',
  'mfacode',
]);
/** Names that are often credentials but also name references (order ids, map keys): only a clearly random value counts. */
const WEAK_NAMES = new Set(['key', 'session', 'auth', 'hash', 'ticket']);
const STRONG_SUFFIXES = ['token', 'apikey', 'accesskey', 'sessionid', 'signature'];
const SECRET_SUFFIXES = ['secret', 'password', 'passwd'];

/** Random by design, public, or opaque pagination state: never credentials by name. */
const NOT_CREDENTIALS = new Set([
  'state',
  'nonce',
  'codechallenge',
  'codechallengemethod',
  'clientid',
  'responsetype',
  'scope',
  'pagetoken',
  'nextpagetoken',
  'continuationtoken',
  'synctoken',
  'resumptiontoken',
  'cursor',
  'publishablekey',
  'sitekey',
]);

/** Path segments after which the next segment is a secret when it looks like one (`/reset/<token>`). */
const PATH_SECRET_CONTEXT = new Set([
  'token',
  'accesstoken',
  'apikey',
  'key',
  'session',
  'sessionid',
  'reset',
  'resetpassword',
  'passwordreset',
  'forgotpassword',
  'setpassword',
  'magic',
  'magiclink',
  'verify',
  'verification',
  'verifyemail',
  'confirm',
  'confirmation',
  'confirmemail',
  'activate',
  'activation',
  'invite',
  'invitation',
  'unsubscribe',
  'auth',
  'sso',
]);

// Object ids of payment processors that are references, not secrets (Stripe `cs_test_...`,
// `pi_...`); Stripe's secret keys (`sk_`, `rk_`) are not in the list and `findSecret` knows them.
const PUBLIC_ID = /^(?:cs|pi|pm|seti|cus|sub|in|ch|re|acct|evt|txn|prod|price|plink|po|tr|py|src|tok)_(?:test_|live_)?[A-Za-z0-9]{8,}$/;
// `Authorization`-style values: a scheme word then the credential.
const AUTH_SCHEME = /^(?:basic|bearer|token|digest|negotiate|apikey)\s+(\S{8,})$/i;
const TOKEN_CHARS = /^[A-Za-z0-9._~+/=-]+$/;
const HEX = /^[0-9a-fA-F]+$/;
// Prefix rules whose prefix is an ordinary word start (`sk-`, `glpat-`, `xoxb-`): a slug such as
// `sk-learn-tutorial-for-beginners` is lower-case words and hyphens, a key never is.
const SLUG = /^[a-z-]+$/;
const BASE64_JSON = /^eyJ[A-Za-z0-9_-]{12,4096}={0,2}$/;

/** Pre-authenticated URLs: whoever has the URL can post as the integration. By exact host, then path shape. */
const WEBHOOKS: ReadonlyMap<string, readonly [RegExp, string]> = new Map([
  ['hooks.slack.com', [/^\/(?:services|workflows|triggers)\/[A-Za-z0-9]+\/[A-Za-z0-9]+\/[A-Za-z0-9]{8,}/, 'a Slack webhook URL']],
  ['discord.com', [/^\/api\/(?:v\d+\/)?webhooks\/\d+\/[A-Za-z0-9_-]{20,}/, 'a Discord webhook URL']],
  ['discordapp.com', [/^\/api\/(?:v\d+\/)?webhooks\/\d+\/[A-Za-z0-9_-]{20,}/, 'a Discord webhook URL']],
  ['canary.discord.com', [/^\/api\/(?:v\d+\/)?webhooks\/\d+\/[A-Za-z0-9_-]{20,}/, 'a Discord webhook URL']],
  ['ptb.discord.com', [/^\/api\/(?:v\d+\/)?webhooks\/\d+\/[A-Za-z0-9_-]{20,}/, 'a Discord webhook URL']],
  ['api.telegram.org', [/^\/(?:file\/)?bot\d+:[A-Za-z0-9_-]{20,}/, 'a Telegram bot token']],
  ['outlook.office.com', [/^\/webhook\/[^/]+\/IncomingWebhook\//i, 'a Microsoft Teams webhook URL']],
  ['outlook.office365.com', [/^\/webhook\/[^/]+\/IncomingWebhook\//i, 'a Microsoft Teams webhook URL']],
  ['hooks.zapier.com', [/^\/hooks\/catch\/\d+\/[A-Za-z0-9]+/, 'a Zapier webhook URL']],
  ['maker.ifttt.com', [/^\/trigger\/[^/]+\/with\/key\/[A-Za-z0-9_-]{10,}/, 'an IFTTT webhook key']],
]);
const TEAMS_WEBHOOK_HOST = '.webhook.office.com';
const WEBHOOK_SITES = new Set([
  'slack.com',
  'discord.com',
  'discordapp.com',
  'telegram.org',
  'office.com',
  'office365.com',
  'zapier.com',
  'ifttt.com',
]);
const TEAMS_WEBHOOK_PATH = /^\/webhookb2\//i;
// Every URL asks whether its site is a webhook site: a bit per (first letter, length) of those
// sites answers most without hashing the name for the set.
const WEBHOOK_SHAPES = new Uint32Array(128);
for (const site of WEBHOOK_SITES) WEBHOOK_SHAPES[site.charCodeAt(0) & 0x7f]! |= 1 << Math.min(site.length, 31);

function mayBeWebhookSite(registrable: string): boolean {
  return (WEBHOOK_SHAPES[registrable.charCodeAt(0) & 0x7f]! & (1 << Math.min(registrable.length, 31))) !== 0;
}

/**
 * The credential rules' class of a parameter name, from fixed lists: read once per name by the
 * content gate (`gate.ts`), which keeps it with the name (`UrlPart.facts`).
 */
export function nameClass(key: string): CredentialNameClass {
  if (key.length < 2 || NOT_CREDENTIALS.has(key) || key.includes('csrf') || key.includes('xsrf')) return null;
  if (ALWAYS_SECRET.has(key)) return 'secret';
  if (ANY_VALUE_CREDENTIALS.has(key)) return 'any';
  if (STRONG_NAMES.has(key)) return 'strong';
  if (WEAK_NAMES.has(key)) return 'weak';
  for (const suffix of SECRET_SUFFIXES) if (key.endsWith(suffix)) return 'secret';
  for (const suffix of STRONG_SUFFIXES) if (key.endsWith(suffix)) return 'strong';
  return null;
}

/**
 * `findSecret`, behind its screen: most URL values are ids and nonces that the screen clears in
 * one pass without running the combined pattern.
 */
function secretIn(value: string): SecretMatch | null {
  return mayHoldSecret(value) ? findSecret(value) : null;
}

/** Evidence enough under a name that says "credential". */
function looksLikeCredentialValue(value: string): boolean {
  if (secretIn(value) !== null || looksRandomToken(value)) return true;
  return value.length >= 12 && value.length <= 4096 && TOKEN_CHARS.test(value) && /[A-Za-z]/.test(value) && /[0-9]/.test(value);
}

/** Evidence enough under an ambiguous name: a known shape, long hex, or mixed-case random text. */
function clearlyRandom(value: string): boolean {
  if (secretIn(value) !== null) return true;
  if (value.length >= 32 && HEX.test(value)) return true;
  return /[a-z]/.test(value) && /[A-Z]/.test(value) && /[0-9]/.test(value) && looksRandomToken(value);
}

function decodeBase64Url(text: string): string | null {
  try {
    const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
    return atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  } catch {
    return null;
  }
}

/**
 * Key prefixes matched by prefix and alphabet, not by the canonical length (issue 12): a GitHub
 * token cut short, an older or newer key generation, a vendor that changed its length. Each needs
 * a body long enough that the prefix alone (`sk-`, `hf_` in prose or a slug) does not match.
 */
const PREFIX_AND_CHARSET: readonly (readonly [RegExp, string])[] = [
  [/^gh[pousr]_[A-Za-z0-9]{16,}$/, 'github-token'],
  [/^github_pat_[A-Za-z0-9_]{20,}$/, 'github-fine-grained-token'],
  [/^glp(?:at|tt)-[A-Za-z0-9_-]{16,}$/, 'gitlab-token'],
  [/^xox[abposr]-[A-Za-z0-9-]{10,}$/, 'slack-token'],
  [/^(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}$/, 'stripe-secret-key'],
  [/^sk-(?:proj-|svcacct-|admin-|ant-(?:api\d+-)?)?[A-Za-z0-9_-]{16,}$/, 'openai-or-anthropic-key'],
  [/^npm_[A-Za-z0-9]{20,}$/, 'npm-token'],
  [/^hf_[A-Za-z0-9]{16,}$/, 'huggingface-token'],
  [/^pypi-[A-Za-z0-9_-]{32,}$/, 'pypi-token'],
  [/^shp(?:at|ca|pa|ss)_[a-fA-F0-9]{20,}$/, 'shopify-token'],
  [/^do[pro]_v1_[a-f0-9]{32,}$/, 'digitalocean-token'],
  [/^ya29\.[0-9A-Za-z_-]{16,}$/, 'google-oauth-token'],
  [/^AIza[0-9A-Za-z_-]{30,}$/, 'google-api-key'],
  [/^EAA[A-Za-z0-9]{30,}$/, 'meta-access-token'],
  [/^SG\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}$/, 'sendgrid-key'],
  [/^whsec_[A-Za-z0-9]{16,}$/, 'stripe-webhook-secret'],
];

// The rules of `PREFIX_AND_CHARSET` by the two characters they start with, in the list's order:
// a value is tried against the few that can match it. Each rule starts with literal characters,
// or with a group of literal alternatives (`(?:sk|rk)_`).

const PREFIX_RULES: ReadonlyMap<string, readonly (readonly [RegExp, string])[]> = (() => {
  const out = new Map<string, (readonly [RegExp, string])[]>();
  for (const rule of PREFIX_AND_CHARSET) {
    const body = rule[0].source.slice(1);
    const group = /^\(\?:([A-Za-z0-9|]+)\)/.exec(body);
    const starts = group !== null ? group[1]!.split('|').map((alt) => alt.slice(0, 2)) : [body.slice(0, 2)];
    for (const start of starts) {
      if (!/^[A-Za-z0-9]{2}$/.test(start))
        throw new Error(`credentials.ts: the rule ${rule[1]} does not start with two literal characters`);
      const list = out.get(start);
      if (list === undefined) out.set(start, [rule]);
      else list.push(rule);
    }
  }
  return out;
})();

// `PREFIX_RULES` by the codes of their first two characters (`first << 7 | second`, both ASCII),
// read without a RegExp, a slice or a hash: most pairs start no rule.
const PREFIX_RULES_BY_PAIR: (readonly (readonly [RegExp, string])[] | undefined)[] = new Array(128 * 128).fill(undefined);
for (const [start, rules] of PREFIX_RULES) PREFIX_RULES_BY_PAIR[(start.charCodeAt(0) << 7) | start.charCodeAt(1)] = rules;

function prefixRules(value: string): readonly (readonly [RegExp, string])[] | undefined {
  return rulesStartingWith(value.charCodeAt(0), value.charCodeAt(1));
}

/** The rules that start with the characters `first` and `second` (NaN past the end of a value: none). */
function rulesStartingWith(first: number, second: number): readonly (readonly [RegExp, string])[] | undefined {
  return first < 128 && second < 128 ? PREFIX_RULES_BY_PAIR[(first << 7) | second] : undefined;
}

function prefixedSecret(value: string): SecretMatch | null {
  if (value.length < 12) return null;
  const rules = prefixRules(value);
  if (rules === undefined) return null;
  for (const [pattern, rule] of rules) if (pattern.test(value)) return { kind: 'api-key', rule };
  return null;
}

/**
 * `secretIn`, counting in `census` at `at` (zeros there) the personal-data census of `value` as
 * the secret screen reads it; `census[at + CENSUS_COUNTED]` is set to 1 when the screen read it
 * whole, and the counts are then the census of `value`.
 */
function secretInCounting(value: string, census: Int32Array, at: number): SecretMatch | null {
  const screened = mayHoldSecretCounting(value, CENSUS_CLASS, census, at);
  if (screened === 1) return findSecret(value);
  if (screened === 0) census[at + CENSUS_COUNTED] = 1;
  return null;
}

/**
 * A secret-shaped value: structural match (not a slug), or one inside base64url JSON. With
 * `census`, the personal-data census of `value` is stored there at `at` when the secret screen
 * read it whole (`secretInCounting`).
 */
export function shapedSecret(value: string, census: Int32Array | null = null, at = 0): SecretMatch | null {
  if (value.length < 12) return null;
  const prefixed = prefixedSecret(value);
  if (prefixed !== null) return SLUG.test(value) ? null : prefixed;
  if (value.length < 16) return null;
  const match = census === null ? secretIn(value) : secretInCounting(value, census, at);
  if (match !== null) return match.kind === 'api-key' && SLUG.test(value) ? null : match;
  // `BASE64_JSON` starts with `eyJ`; what it decodes to is screened from 16 characters on
  // (`secretIn`), which take 22 base64 characters besides the `=` padding: a shorter value (a
  // pagination cursor, `eyJpZCI6MTIzNDU2fQ`) is not decoded.
  if (
    value.charCodeAt(0) === 0x65 &&
    value.charCodeAt(1) === 0x79 &&
    value.charCodeAt(2) === 0x4a &&
    unpaddedLength(value) >= MIN_BASE64_SECRET &&
    BASE64_JSON.test(value)
  ) {
    const decoded = decodeBase64Url(value);
    if (decoded !== null) return secretIn(decoded);
  }
  return null;
}

/**
 * The base64 characters that decode to the 16 a secret needs at least (`findSecret`): `atob`
 * gives three characters for every four, and drops the bits left over.
 */
const MIN_BASE64_SECRET = 22;

/** The length of `value` without the `=` padding at its end. */
function unpaddedLength(value: string): number {
  let end = value.length;
  while (end > 0 && value.charCodeAt(end - 1) === 0x3d) end--;
  return end;
}

/** True when a value of 12 to 15 characters could be a prefixed key (`shapedSecret`; `content.ts`'s gate). */
export function mayBePrefixedSecret(value: string): boolean {
  return prefixRules(value) !== undefined;
}

/** `mayBePrefixedSecret` of a value that starts with the characters `first` and `second` (NaN: none). */
export function mayStartPrefixedSecret(first: number, second: number): boolean {
  return rulesStartingWith(first, second) !== undefined;
}

/** True when a path segment makes the next one a credential candidate (`content.ts`'s gate). */
export function isSecretContext(context: string): boolean {
  return mayBeSecretContext(context) && SECRET_CONTEXTS.has(context);
}

/** The segments `pathCredential` reads the next segment after: `ALWAYS_SECRET` and `PATH_SECRET_CONTEXT`, one lookup. */
const SECRET_CONTEXTS: ReadonlySet<string> = new Set([...ALWAYS_SECRET, ...PATH_SECRET_CONTEXT]);

// A bit per (first letter, length) of the secret-naming segments: most segments are none of
// them, and this tells without hashing the segment for the sets.
const CONTEXT_SHAPES = new Uint32Array(128);
for (const name of [...ALWAYS_SECRET, ...PATH_SECRET_CONTEXT]) CONTEXT_SHAPES[name.charCodeAt(0) & 0x7f]! |= 1 << Math.min(name.length, 31);

function mayBeSecretContext(context: string): boolean {
  return mayBeSecretContextShape(context.charCodeAt(0), context.length);
}

/** False when no secret-naming segment starts with the character `first` and has `length` characters (`gate.ts`). */
export function mayBeSecretContextShape(first: number, length: number): boolean {
  return (CONTEXT_SHAPES[first & 0x7f]! & (1 << Math.min(length, 31))) !== 0;
}

function namedCredential(part: UrlPart): string | null {
  const cls = part.facts.credential;
  if (cls === null) return null;
  const value = part.value.trim();
  if (PUBLIC_ID.test(value)) return null;
  const scheme = AUTH_SCHEME.exec(value);
  if (scheme !== null) return 'a parameter named like a credential';
  switch (cls) {
    case 'secret':
      return FLAG_VALUES.has(value.toLowerCase()) ? null : 'a parameter named like a password or secret';
    case 'any':
      if (FLAG_VALUES.has(value.toLowerCase()) || (part.key === 'token' && ORDER_TOKEN.test(value))) return null;
      return 'a parameter named like a credential';
    case 'strong':
      return looksLikeCredentialValue(value) ? 'a parameter named like a credential' : null;
    case 'weak':
      return clearlyRandom(value) ? 'a parameter named like a credential' : null;
  }
}

function pathCredential(part: UrlPart): string | null {
  const context = part.context;
  if (context === '') return null;
  if (ALWAYS_SECRET.has(context)) {
    // `/password/Winter2024!` but not `/password/reset` or `/password/overview`.
    return !FLAG_VALUES.has(part.value.toLowerCase()) && /[^A-Za-z]/.test(part.value) ? 'a path segment after a password segment' : null;
  }
  if (PATH_SECRET_CONTEXT.has(context) && !PUBLIC_ID.test(part.value) && looksLikeCredentialValue(part.value)) {
    return 'a token in the path after a "' + context + '" segment';
  }
  return null;
}

/**
 * The credential-carrying parts of a URL. `oauthRequest` is true for an OAuth/OIDC authorization
 * request (then a `request` object is a signed JAR, not a credential).
 */
export function findCredentials(parts: readonly UrlPart[], oauthRequest: boolean, census: Int32Array | null = null): CredentialHit[] {
  const hits: CredentialHit[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part.name !== null) {
      const named = namedCredential(part);
      if (named !== null) {
        hits.push({ part, rule: named });
        continue;
      }
      // The gate read the name's shape once per name (`UrlPart.nameSecret`).
      if (part.nameSecret !== null) {
        hits.push({ part, rule: `${part.nameSecret} as a parameter name` });
        continue;
      }
      if (oauthRequest && part.key === 'request') continue;
    } else if (part.where === 'path') {
      const inPath = pathCredential(part);
      if (inPath !== null) {
        hits.push({ part, rule: inPath });
        continue;
      }
    }
    const shaped = shapedSecret(part.value, census, i * CENSUS_STRIDE);
    if (shaped !== null) hits.push({ part, rule: shaped.rule });
  }
  return hits;
}

// Path segments of an OAuth client's redirection endpoint.
const CALLBACK_PATH =
  /(?:^|\/)(?:callback|callbacks|cb|redirect|oauth2?|auth|signin-oidc|oidc|sso|complete|return|login|connect)(?:[/_.-]|$)/i;
const RESPONSE_COMPANIONS = new Set(['state', 'iss', 'sessionstate']);

/** True for the parameter names `findAuthorizationResponse` reads: `code` and its companions (`gate.ts`). */
export function isAuthorizationResponseName(key: string): boolean {
  return key === 'code' || RESPONSE_COMPANIONS.has(key);
}

/**
 * An OAuth 2.0 / OIDC authorization *response* (RFC 6749 §4.1.2, RFC 9207, OIDC Core §3.1.2.5):
 * a `code` with its `state`, `iss` or `session_state`, or a `code` on a redirection endpoint's
 * path. Whoever holds it can redeem it, so handing it to the user leaks it. An authorization
 * *request* never carries a `code` parameter.
 */
export function findAuthorizationResponse(parts: readonly UrlPart[], pathname: string): CredentialHit | null {
  let code: UrlPart | null = null;
  let companion = false;
  for (const part of parts) {
    if (part.name === null || part.where === 'path') continue;
    if (part.key === 'code') {
      if (part.value.length >= 3 && !FLAG_VALUES.has(part.value.toLowerCase())) code ??= part;
    } else if (RESPONSE_COMPANIONS.has(part.key)) companion = true;
  }
  if (code === null) return null;
  if (!companion && !CALLBACK_PATH.test(pathname)) return null;
  return { part: code, rule: 'an OAuth authorization code' };
}

/** A URL that is itself a secret (webhook endpoints), by host and path shape. */
export function findPreauthenticatedUrl(hostname: string, pathname: string, registrable: string | null): CredentialHit | null {
  if (registrable === null || !mayBeWebhookSite(registrable) || !WEBHOOK_SITES.has(registrable)) return null;
  const shape = WEBHOOKS.get(hostname);
  if (shape !== undefined) return shape[0].test(pathname) ? { part: null, rule: shape[1] } : null;
  if (hostname.endsWith(TEAMS_WEBHOOK_HOST) && TEAMS_WEBHOOK_PATH.test(pathname))
    return { part: null, rule: 'a Microsoft Teams webhook URL' };
  return null;
}

// Prefixes of the secret rules that survive the host parser's lower-casing, at a label start.
const HOST_LABEL_PREFIX =
  /(?:^|\.)(?:gh[pousr]_|github_pat_|sk-|[sr]k_(?:live|test)_|glp(?:at|tt)-|xox[abposr]-|xapp-|a(?:kia|sia|gpa|ida|roa|npa|nva|ipa)|npm_|pypi-|hf_|shp(?:at|ca|pa|ss)_|sk[0-9a-f]{32}|do[pro]_v1_|whsec_)/;
const LABEL_PREFIX = new RegExp(HOST_LABEL_PREFIX.source.replace('(?:^|\\.)', '^'));

/** A host label shaped like a secret (`ghp_...`, `AKIA...` lower-cased by the parser): DNS exfiltration. */
export function findSecretInHost(hostname: string): CredentialHit | null {
  // Only a label of 16 characters or more is judged, and most hosts have none: a scan of the dots
  // tells without running the prefix regex over every host.
  if (hostname.length < 17 || !hasLongLabel(hostname, 16) || !HOST_LABEL_PREFIX.test(hostname)) return null;
  for (const label of hostname.split('.')) {
    if (label.length < 16 || !LABEL_PREFIX.test(label)) continue;
    const match = secretIn(label) ?? secretIn(label.toUpperCase());
    if (match !== null) return { part: null, rule: `${match.rule} in a host label` };
  }
  return null;
}

/** True when a dot-separated label of `host` is at least `min` characters long. */
function hasLongLabel(host: string, min: number): boolean {
  let start = 0;
  for (;;) {
    const dot = host.indexOf('.', start);
    const end = dot < 0 ? host.length : dot;
    if (end - start >= min) return true;
    if (dot < 0) return false;
    start = dot + 1;
  }
}
