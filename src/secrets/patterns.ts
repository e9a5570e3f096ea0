/**
 * Secret-shaped values: JWTs, private-key blocks and the well-known prefixes of API keys and
 * tokens. Shared by the form content check, the URL credential check and audit redaction, so
 * the three agree on what a secret looks like.
 */

export type SecretKind = 'jwt' | 'private-key' | 'api-key' | 'bearer' | 'high-entropy';

export interface SecretMatch {
  readonly kind: SecretKind;
  /** A label for the rule that matched (e.g. `github-token`), never the value. */
  readonly rule: string;
}

interface PrefixRule {
  readonly rule: string;
  readonly pattern: RegExp;
}

// Each pattern is anchored on a word boundary and requires enough body after the prefix that
// ordinary words ("sk-", "AKIA" in prose) do not match.
const PREFIX_RULES: readonly PrefixRule[] = [
  { rule: 'openai-key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/ },
  { rule: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/ },
  { rule: 'stripe-secret-key', pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/ },
  { rule: 'stripe-webhook-secret', pattern: /\bwhsec_[A-Za-z0-9]{20,}/ },
  { rule: 'github-token', pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}/ },
  { rule: 'github-fine-grained-token', pattern: /\bgithub_pat_[A-Za-z0-9_]{30,}/ },
  { rule: 'gitlab-token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/ },
  { rule: 'gitlab-trigger-token', pattern: /\bglptt-[A-Za-z0-9_-]{20,}/ },
  { rule: 'telegram-bot-token', pattern: /\b\d{8,10}:AA[A-Za-z0-9_-]{30,}/ },
  { rule: 'slack-token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { rule: 'slack-app-token', pattern: /\bxapp-\d-[A-Za-z0-9-]{10,}/ },
  { rule: 'aws-access-key-id', pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/ },
  { rule: 'google-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/ },
  { rule: 'google-oauth-token', pattern: /\bya29\.[0-9A-Za-z_-]{20,}/ },
  { rule: 'npm-token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { rule: 'pypi-token', pattern: /\bpypi-[A-Za-z0-9_-]{50,}/ },
  { rule: 'huggingface-token', pattern: /\bhf_[A-Za-z0-9]{30,}/ },
  { rule: 'shopify-token', pattern: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/ },
  { rule: 'sendgrid-key', pattern: /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/ },
  { rule: 'twilio-key', pattern: /\bSK[0-9a-fA-F]{32}\b/ },
  { rule: 'digitalocean-token', pattern: /\bdo[pro]_v1_[a-f0-9]{64}\b/ },
  { rule: 'azure-sas-signature', pattern: /\bsig=[A-Za-z0-9%+/]{30,}={0,2}/ },
];

const JWT = /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/;
const PRIVATE_KEY = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/;
const BEARER = /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/i;

/** Finds a secret-shaped substring by its structure alone (no entropy guessing). */
export function findSecret(value: string): SecretMatch | null {
  if (value.length < 16) return null;
  if (PRIVATE_KEY.test(value)) return { kind: 'private-key', rule: 'private-key-block' };
  if (JWT.test(value)) return { kind: 'jwt', rule: 'jwt' };
  for (const { rule, pattern } of PREFIX_RULES) if (pattern.test(value)) return { kind: 'api-key', rule };
  if (BEARER.test(value)) return { kind: 'bearer', rule: 'bearer-token' };
  return null;
}

/** Shannon entropy in bits per character. */
export function shannonEntropy(value: string): number {
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  const n = value.length;
  for (const count of counts.values()) {
    const p = count / n;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * True for a random-looking token: long, one unbroken run of token characters, several
 * character classes and high entropy. Used only where the context already says "credential"
 * (a parameter named `token`, a default of a password field), never on free text.
 */
export function looksRandomToken(value: string): boolean {
  if (value.length < 16 || value.length > 4096) return false;
  if (!/^[A-Za-z0-9._~+/=-]+$/.test(value)) return false;
  let classes = 0;
  if (/[a-z]/.test(value)) classes++;
  if (/[A-Z]/.test(value)) classes++;
  if (/[0-9]/.test(value)) classes++;
  if (/[._~+/=-]/.test(value)) classes++;
  const hex = /^[0-9a-fA-F]+$/.test(value);
  if (!hex && classes < 2) return false;
  return shannonEntropy(value) >= (hex ? 3.0 : 3.5);
}

/** A structural match, or a random-looking token reported as `high-entropy`. */
export function findSecretOrToken(value: string): SecretMatch | null {
  return findSecret(value) ?? (looksRandomToken(value) ? { kind: 'high-entropy', rule: 'random-token' } : null);
}
