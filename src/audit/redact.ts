import { findSecret } from '../secrets/patterns.js';

const URL_LIKE = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;

/** Keeps scheme, host and path of URLs in free text; drops userinfo, query and fragment. */
function redactUrls(text: string): string {
  return text.replace(URL_LIKE, (match) => {
    try {
      const url = new URL(match);
      const query = url.search === '' ? '' : '?[redacted]';
      const fragment = url.hash === '' ? '' : '#[redacted]';
      return `${url.protocol}//${url.host}${url.pathname}${query}${fragment}`;
    } catch {
      return '[redacted-url]';
    }
  });
}

/**
 * A last line of defence for anything written to a log: secret-shaped strings are replaced and
 * URLs lose their userinfo, query and fragment. Events are built without secrets in the first
 * place; this catches a mistake, it is not the design.
 */
export function redact<T>(value: T, depth = 0): T {
  if (typeof value === 'string') {
    // URLs lose their userinfo first, so a URL with a password keeps its host and path in the log.
    const text = value.includes('://') ? redactUrls(value) : value;
    return (findSecret(text) !== null ? '[redacted]' : text) as T;
  }
  if (depth > 8 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = redact(item, depth + 1);
  return out as T;
}
