import * as crypto from 'node:crypto';
import { createRequire } from 'node:module';

// canonicalize is CommonJS whose typings claim a default export; require gives the function itself.
const canonicalize = createRequire(import.meta.url)('canonicalize') as (value: unknown) => string | undefined;

/**
 * The request digest: sha256 (hex) over the RFC 8785 canonical JSON of `{ method, params }`,
 * with `params._meta` removed, so progress tokens and trace ids do not make a retry look new.
 */
export function requestDigest(method: string, params: unknown): string {
  let body: unknown = params;
  if (typeof params === 'object' && params !== null && !Array.isArray(params) && '_meta' in params) {
    const { _meta: _ignored, ...rest } = params as Record<string, unknown>;
    body = rest;
  }
  const canonical = canonicalize(body === undefined ? { method } : { method, params: body });
  return sha256Hex(canonical ?? '');
}

// One-shot `crypto.hash` (Node ≥ 20.12) costs a quarter of a Hash object for the short texts
// digested per message; the same bytes either way.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

export function sha256Hex(text: string): string {
  return oneShot === undefined ? crypto.createHash('sha256').update(text, 'utf8').digest('hex') : oneShot('sha256', text, 'hex');
}

/** A short, non-reversible tag for values that must be correlated in logs but never shown. */
export function shortDigest(text: string): string {
  return sha256Hex(text).slice(0, 16);
}

/**
 * sha256 (hex) over the RFC 8785 canonical JSON of any JSON value, so equal values digest equally
 * whatever their key order. Throws on values JSON cannot hold (undefined at the top, cycles).
 */
export function canonicalDigest(value: unknown): string {
  const canonical = canonicalize(value);
  if (canonical === undefined) throw new TypeError('canonicalDigest: the value has no JSON form');
  return sha256Hex(canonical);
}
