/**
 * Finds URLs in the texts of a form. Spec 2025-11-25 (Safe URL Handling): servers SHOULD NOT put
 * URLs meant to be clicked in any field of a form-mode request; clients SHOULD NOT render them as
 * clickable. Bare domain names ("example.com", "Node.js") are not reported: too many false alarms.
 */

const SCHEME_URL = /\b[a-z][a-z0-9+.-]{1,31}:\/\/[^\s<>"']/i;
const SCRIPT_URL = /\b(?:javascript|vbscript|data|mailto|file):[^\s]/i;
const WWW_URL = /\bwww\.[a-z0-9-]+\.[a-z]/i;

/** Longest text searched for a URL; a form text longer than this is unusual and read only in part. */
const MAX_SCAN = 65_536;

export function containsUrl(text: string): boolean {
  const t = text.length > MAX_SCAN ? text.slice(0, MAX_SCAN) : text;
  return SCHEME_URL.test(t) || SCRIPT_URL.test(t) || WWW_URL.test(t);
}
