import { readFileSync } from 'node:fs';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import type { z } from 'zod';
import { policyJsonSchema } from './json-schema.js';
import { nearest } from './suggest.js';
import { GuardCode, GuardError } from '../protocol/errors.js';
import {
  policySchema,
  type CompletionSettings,
  type FormAllowRule,
  type FormSettings,
  type ParsedPolicy,
  type Profile,
  type RetrySettings,
  type SubjectSettings,
  type UrlAllowRule,
  type UrlSettings,
} from './schema.js';

/**
 * The effective policy for one server: every setting resolved, per-server overrides applied.
 * This is what the checkers read.
 */
export interface Policy {
  readonly profile: Profile;
  readonly issuing: 'open' | 'stopped';
  /** `allow`: the server's narrow exceptions (per-server only; absent or empty at the top level). */
  readonly form: Readonly<FormSettings> & { readonly allow?: readonly FormAllowRule[] };
  readonly url: Readonly<UrlSettings> & { readonly allow?: readonly UrlAllowRule[] };
  readonly completion: Readonly<CompletionSettings>;
  readonly retry: Readonly<RetrySettings>;
  readonly subject: Readonly<SubjectSettings>;
}

export const DEFAULT_FORM: FormSettings = { enabled: true, onSensitive: 'block', blockPersonal: false };
export const DEFAULT_URL: UrlSettings = {
  enabled: true,
  allowedHosts: [],
  protectedDomains: [],
  redirectHosts: [],
  maxLength: 2048,
  onBlock: 'block',
};
export const DEFAULT_COMPLETION: CompletionSettings = { ttlSeconds: 600, maxPending: 1024 };
export const DEFAULT_RETRY: RetrySettings = { maxRetries: 1, maxRounds: 10, maxUrlRequiredRounds: 5 };
export const DEFAULT_SUBJECT: SubjectSettings = { required: false };

/** A policy file after parsing: the top level plus the per-server overrides. */
export interface PolicyDocument {
  readonly base: Policy;
  readonly servers: Readonly<Record<string, Policy>>;
  /** The effective policy for a server key (the base when the key has no override). */
  forServer(serverKey: string | undefined): Policy;
}

function resolve(parsed: ParsedPolicy, override: ParsedPolicy['servers'][string] | undefined): Policy {
  const o = override ?? {};
  return Object.freeze({
    profile: o.profile ?? parsed.profile,
    issuing: o.issuing ?? parsed.issuing,
    form: Object.freeze({ ...DEFAULT_FORM, ...parsed.form, ...o.form }),
    url: Object.freeze({ ...DEFAULT_URL, ...parsed.url, ...o.url }),
    completion: Object.freeze({ ...DEFAULT_COMPLETION, ...parsed.completion, ...o.completion }),
    retry: Object.freeze({ ...DEFAULT_RETRY, ...parsed.retry, ...o.retry }),
    subject: Object.freeze({ ...DEFAULT_SUBJECT, ...parsed.subject, ...o.subject }),
  });
}

function documentOf(parsed: ParsedPolicy): PolicyDocument {
  const base = resolve(parsed, undefined);
  const servers: Record<string, Policy> = {};
  for (const [key, override] of Object.entries(parsed.servers)) servers[key] = resolve(parsed, override);
  Object.freeze(servers);
  return Object.freeze({
    base,
    servers,
    forServer: (serverKey: string | undefined) =>
      serverKey !== undefined && Object.hasOwn(servers, serverKey) ? servers[serverKey]! : base,
  });
}

type SchemaNode = {
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
};

/** The keys the policy file allows at a JSON path (walking the generated JSON Schema). */
function knownKeysAt(path: readonly PropertyKey[]): string[] {
  let node: SchemaNode | undefined = policyJsonSchema as SchemaNode;
  for (const step of path) {
    if (node === undefined) return [];
    if (typeof step === 'number') node = node.items;
    else if (node.properties !== undefined && Object.hasOwn(node.properties, String(step))) node = node.properties[String(step)];
    else node = typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
  }
  return Object.keys(node?.properties ?? {});
}

function unknownKeyMessage(path: readonly PropertyKey[], key: string): string {
  const last = path[path.length - 1];
  if (key === 'allow' && path.length === 1 && (last === 'form' || last === 'url')) {
    return `unknown key "allow": exceptions are per server, put them under servers.<key>.${String(last)}.allow`;
  }
  const hint = nearest(key, knownKeysAt(path));
  return `unknown key ${JSON.stringify(key)}${
    hint === null ? ' (check the spelling; see policy.schema.json)' : ` (did you mean \`${hint}\`?)`
  }`;
}

/** Renders zod issues as `at <json path>: <what was expected>` lines. */
function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .flatMap((issue) => {
      const path =
        issue.path.length === 0
          ? '(top level)'
          : '$' + issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
      if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => `at ${path}: ${unknownKeyMessage(issue.path, key)}`);
      return [`at ${path}: ${issue.message}`];
    })
    .join('\n');
}

/** Where JSON text stops being JSON: `line L, column C: <what>`. */
function syntaxErrorAt(text: string, fallback: string): string {
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { allowTrailingComma: false, disallowComments: true, allowEmptyContent: false });
  const first = errors[0];
  if (first === undefined) return fallback;
  let line = 1;
  let start = 0;
  for (let i = 0; i < first.offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return `line ${line}, column ${first.offset - start + 1}: ${printParseErrorCode(first.error)} (${fallback})`;
}

/**
 * Parses a policy from a JSON value (or JSON text). Throws `GuardError` `E_POLICY_INVALID`
 * whose message names each JSON path and what was expected there.
 */
export function parsePolicy(json: unknown): PolicyDocument {
  let value = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json);
    } catch (error) {
      throw new GuardError(GuardCode.policyInvalid, `policy is not valid JSON at ${syntaxErrorAt(json, (error as Error).message)}`);
    }
  }
  const result = policySchema.safeParse(value);
  if (!result.success) {
    throw new GuardError(GuardCode.policyInvalid, `policy is invalid:\n${describeIssues(result.error.issues)}`, {
      issues: result.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
    });
  }
  return documentOf(result.data);
}

/** Reads and parses a policy file. Throws `E_POLICY_UNREADABLE` or `E_POLICY_INVALID`. */
export function loadPolicy(path: string): PolicyDocument {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new GuardError(
      GuardCode.policyUnreadable,
      `cannot read policy file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  try {
    return parsePolicy(text);
  } catch (error) {
    if (GuardError.is(error))
      throw new GuardError(error.code, `${path}: ${error.message}`, error.details as Record<string, unknown> | undefined);
    throw error;
  }
}

/** The built-in policy: production profile, every check on. */
export const defaultPolicy: PolicyDocument = parsePolicy({});

/** Accepts what hosts naturally pass: nothing, a document, a resolved policy, or a raw object. */
export function toPolicyDocument(value: PolicyDocument | Policy | unknown): PolicyDocument {
  if (value === undefined) return defaultPolicy;
  if (typeof value === 'object' && value !== null && 'forServer' in value && 'base' in value) return value as PolicyDocument;
  if (typeof value === 'object' && value !== null && isResolvedPolicy(value)) {
    const policy = value as Policy;
    return Object.freeze({ base: policy, servers: Object.freeze({}), forServer: () => policy });
  }
  return parsePolicy(value);
}

function isResolvedPolicy(value: object): boolean {
  const v = value as Partial<Policy>;
  return (
    typeof v.form === 'object' &&
    typeof v.url === 'object' &&
    typeof v.completion === 'object' &&
    typeof v.retry === 'object' &&
    typeof v.subject === 'object' &&
    typeof v.issuing === 'string' &&
    typeof v.profile === 'string' &&
    !('servers' in value)
  );
}
