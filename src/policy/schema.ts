import { domainToASCII } from 'node:url';
import { getDomain } from 'tldts';
import { z } from 'zod';

/** True when `name` is itself a registrable domain (eTLD+1, private suffixes included), not a subdomain or a suffix. */
function isRegistrableDomain(name: string): boolean {
  const ascii = domainToASCII(name).toLowerCase();
  return ascii !== '' && getDomain(ascii, { allowPrivateDomains: true }) === ascii;
}

/** Settings of the form mode checks. */
const formSettings = z
  .object({
    enabled: z.boolean().describe('Allow form-mode elicitation at all. When false the server never sees the form capability.'),
    onSensitive: z
      .enum(['block', 'audit'])
      .describe(
        '"block" answers a form asking for credentials or payment data with E_SENSITIVE_FIELD; "audit" forwards it and only logs (first rollout stage).',
      ),
    blockPersonal: z.boolean().describe('Also treat personal data fields (national id, date of birth, ...) as blocking.'),
  })
  .strict();

const domainName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[^\s/:@]+$/u, 'a bare host name such as "example.com" (no scheme, path, port or userinfo)');

/** Settings of the URL mode checks. */
const urlSettings = z
  .object({
    enabled: z.boolean().describe('Allow URL-mode elicitation at all. When false the server never sees the url capability.'),
    allowedHosts: z
      .array(domainName)
      .describe('When non-empty, only these registrable domains (and their subdomains) may be opened. Empty means open.'),
    protectedDomains: z.array(domainName).describe('Extra domains whose look-alikes are blocked, added to the built-in list.'),
    redirectHosts: z
      .array(domainName)
      .describe(
        "When non-empty, a redirect target may only point to these domains (and their subdomains); any other target blocks. It covers redirect-like parameters (url, q, next, continue, to, r, link, dest, ...), base64-encoded URLs and the redirect_uri of an OAuth authorization request, which is otherwise shown as information only. Set it per server (servers.<key>.url.redirectHosts) to the hosts that server's OAuth clients redirect to.",
      ),
    maxLength: z.number().int().min(64).max(65536).describe('Longest URL accepted, in characters.'),
    onBlock: z
      .enum(['block', 'audit'])
      .describe(
        '"block" refuses a blocked URL with E_URL_BLOCKED; "audit" forwards look-alike and allow-list blocks with the warning and only logs (url.audited), the URL-mode rollout stage. Structural blocks (userinfo, scheme, credentials or personal data in the URL, ...) block in every stage.',
      ),
  })
  .strict();

const reason = z.string().trim().min(1).max(500).describe('Why this exception exists (logged with every use).');

/** A narrow exception for a form field: by field name, by schema digest, or the field within one schema. */
const formAllowRule = z
  .object({
    field: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('The field name (the key in requestedSchema.properties) allowed although it looks sensitive.'),
    schema: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/u, 'a schema digest "sha256:<64 hex digits>" (shown by audit-schema and in the form.sensitive event)')
      .optional()
      .describe('The digest of the whole requestedSchema (RFC 8785 canonical JSON, sha256): only this exact schema.'),
    reason,
  })
  .strict()
  .refine((rule) => rule.field !== undefined || rule.schema !== undefined, { message: 'an allow rule needs "field", "schema" or both' });

/** A narrow exception for URL mode: look-alike and IDN findings on one registrable domain. */
const urlAllowRule = z
  .object({
    domain: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[^\s/:@]+$/u, 'a bare registrable domain such as "example.com" (no scheme, path, port or userinfo)')
      .refine(isRegistrableDomain, 'a registrable domain (eTLD+1) such as "example.com", not a subdomain or a public suffix')
      .describe('A registrable domain (eTLD+1); its subdomains share it.'),
    reason,
  })
  .strict();

const completionSettings = z
  .object({
    ttlSeconds: z
      .number()
      .int()
      .min(1)
      .max(7 * 24 * 3600)
      .describe('How long a URL elicitation id waits for its completion notice.'),
    maxPending: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .describe('How many URL elicitation ids one session remembers; the oldest are forgotten first.'),
  })
  .strict();

const retrySettings = z
  .object({
    maxRetries: z.number().int().min(0).max(10).describe('Retries of a request after a -32042 error that are let through.'),
    maxRounds: z
      .number()
      .int()
      .min(1)
      .max(50)
      .describe(
        '2026-07-28: retries of one operation after input-required results (its rounds) that are let through; the next is refused. Default 10, as SDK v2 inputRequired.maxRounds.',
      ),
    maxUrlRequiredRounds: z
      .number()
      .int()
      .min(1)
      .max(50)
      .describe(
        '2025-11-25: successive -32042 answers one original request may get before its further retries are refused (default 5, the MCP Inspector cap).',
      ),
  })
  .strict();

const subjectSettings = z
  .object({
    required: z.boolean().describe('Refuse URL mode unless the host supplied a verified user subject.'),
  })
  .strict();

/** What one server may change. Every key is optional: it overrides the top level. */
const serverOverride = z
  .object({
    profile: z.enum(['production', 'development']).optional(),
    issuing: z.enum(['open', 'stopped']).optional(),
    form: formSettings
      .partial()
      .extend({
        allow: z
          .array(formAllowRule)
          .max(256)
          .optional()
          .describe('Narrow exceptions to the sensitive-field check for this server; each use is logged (exception.used).'),
      })
      .optional(),
    url: urlSettings
      .partial()
      .extend({
        allow: z
          .array(urlAllowRule)
          .max(256)
          .optional()
          .describe(
            'Registrable domains whose look-alike and IDN findings are excused for this server; structural blocks stay. Each use is logged (exception.used).',
          ),
      })
      .optional(),
    completion: completionSettings.partial().optional(),
    retry: retrySettings.partial().optional(),
    subject: subjectSettings.partial().optional(),
  })
  .strict();

export const policySchema = z
  .object({
    $schema: z.string().optional(),
    version: z.literal(1).default(1).describe('Policy file format version.'),
    profile: z
      .enum(['production', 'development'])
      .default('production')
      .describe('"production": URL mode is https only. "development": http to loopback hosts is allowed too.'),
    issuing: z
      .enum(['open', 'stopped'])
      .default('open')
      .describe('"stopped" declines new URL elicitations (rollback) and keeps the ledger.'),
    form: formSettings.partial().default({}),
    url: urlSettings.partial().default({}),
    completion: completionSettings.partial().default({}),
    retry: retrySettings.partial().default({}),
    subject: subjectSettings.partial().default({}),
    servers: z
      .record(z.string().min(1), serverOverride)
      .default({})
      .describe('Per-server overrides, keyed by the server key the host gives the guard (e.g. its config name).'),
  })
  .strict();

/** A policy file as written (every section optional). */
export type PolicyInput = z.input<typeof policySchema>;
export type ParsedPolicy = z.output<typeof policySchema>;
export type ServerOverride = z.output<typeof serverOverride>;

export type FormSettings = z.output<typeof formSettings>;
export type FormAllowRule = z.output<typeof formAllowRule>;
export type UrlAllowRule = z.output<typeof urlAllowRule>;
export type UrlSettings = z.output<typeof urlSettings>;
export type CompletionSettings = z.output<typeof completionSettings>;
export type RetrySettings = z.output<typeof retrySettings>;
export type SubjectSettings = z.output<typeof subjectSettings>;
export type Profile = 'production' | 'development';
