const REFERENCE_MAX_DIGITS = 15;

/**
 * The string-based check the proxy used before `readLines` counted keys on the bytes, kept as the
 * reference the byte scan is compared with.
 *
 * Whether `line` means to every JSON parser exactly what `parsed` (its `JSON.parse`) holds, so
 * the proxy may pass the original bytes on instead of serialising `parsed` again. Parsers differ
 * where JSON is loose, and a message the guard judged as one thing must not reach the other side
 * as another; so any of these sends the message the slow way (re-serialised, as the guard saw it):
 * - a key twice in one object (JSON.parse keeps the last, other parsers the first or both);
 * - a `__proto__` key (special to JavaScript objects);
 * - a number with a fraction, an exponent, a sign on zero or more than 15 digits (parsers that
 *   keep integers or decimals exactly read another value than a double);
 * - a U+FFFD (the line may have held bytes that are not UTF-8, which decoding replaced).
 * The check is one pass over the text outside strings (strings are skipped with indexOf) and one
 * walk over the parsed value; anything unexpected answers false.
 */
export function referenceFaithful(line: string, parsed: unknown): boolean {
  if (line.includes('\uFFFD')) return false;
  let colons = 0;
  let i = 0;
  const n = line.length;
  while (i < n) {
    const quote = line.indexOf('"', i);
    const end = quote === -1 ? n : quote;
    while (i < end) {
      const c = line.charCodeAt(i);
      if (c === 0x3a) {
        colons++;
        i++;
      } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
        // A number: only an integer of at most 15 digits, not -0, goes through unchanged.
        let k = c === 0x2d ? i + 1 : i;
        if (c === 0x2d && line.charCodeAt(k) === 0x30) return false;
        const first = k;
        while (k < end && line.charCodeAt(k) >= 0x30 && line.charCodeAt(k) <= 0x39) k++;
        if (k - first > REFERENCE_MAX_DIGITS) return false;
        const next = line.charCodeAt(k);
        if (next === 0x2e || next === 0x65 || next === 0x45) return false;
        i = k;
      } else i++;
    }
    if (quote === -1) break;
    // Skip the string: its end is the next quote not escaped by an odd number of backslashes.
    let close = quote;
    for (;;) {
      close = line.indexOf('"', close + 1);
      if (close === -1) return false;
      let slashes = 0;
      while (line.charCodeAt(close - 1 - slashes) === 0x5c) slashes++;
      if ((slashes & 1) === 0) break;
    }
    i = close + 1;
  }
  try {
    return colons === referenceKeysOf(parsed);
  } catch {
    // Nested too deep to walk here: the slow way.
    return false;
  }
}

/** The number of object keys in a parsed JSON value, or -1 when one of them is `__proto__`. */
function referenceKeysOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) {
      const inner = referenceKeysOf(item);
      if (inner < 0) return -1;
      count += inner;
    }
    return count;
  }
  if (Object.hasOwn(value, '__proto__')) return -1;
  for (const key in value) {
    const inner = referenceKeysOf((value as Record<string, unknown>)[key]);
    if (inner < 0) return -1;
    count += inner + 1;
  }
  return count;
}
