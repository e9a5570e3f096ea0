import type { Readable, Writable } from 'node:stream';

/** The longest line accepted from either side (the SDK's stdio default buffer). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/**
 * Splits a byte stream into newline-delimited lines (MCP's stdio framing), without ever holding
 * more than one line plus a chunk. A line over `maxBytes` is reported to `onOversized` and skipped.
 * The complete lines of a chunk are decoded with one `toString` and split as text (a newline byte
 * is never part of a multi-byte UTF-8 sequence, so this decodes exactly as line by line would).
 */
export function readLines(
  stream: Readable,
  onLine: (line: string) => void,
  onOversized: (bytes: number) => void,
  maxBytes = MAX_LINE_BYTES,
): void {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  const emit = (text: string) => onLine(text.charCodeAt(text.length - 1) === 0x0d ? text.slice(0, -1) : text);
  stream.on('data', (chunk: Buffer | string) => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    const first = data.indexOf(0x0a);
    if (first !== -1) {
      if (pendingBytes > 0 || skipping) {
        // The end of the line earlier chunks began.
        if (!skipping) {
          const bytes = pendingBytes + first;
          if (bytes > maxBytes) onOversized(bytes);
          else emit(Buffer.concat([...pending, data.subarray(0, first)]).toString('utf8'));
        }
        pending = [];
        pendingBytes = 0;
        skipping = false;
        start = first + 1;
      }
      const last = data.lastIndexOf(0x0a);
      if (last >= start) {
        if (last - start <= maxBytes) {
          // No line in here can be over the limit: decode once, split the text.
          const text = data.toString('utf8', start, last);
          let from = 0;
          for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
            emit(text.slice(from, nl));
            from = nl + 1;
          }
          emit(from === 0 ? text : text.slice(from));
        } else {
          for (let from = start, nl = data.indexOf(0x0a, from); nl !== -1 && nl <= last; from = nl + 1, nl = data.indexOf(0x0a, from)) {
            if (nl - from > maxBytes) onOversized(nl - from);
            else emit(data.toString('utf8', from, nl));
          }
        }
        start = last + 1;
      }
    }
    if (start >= data.length || skipping) return;
    pending.push(start === 0 ? data : data.subarray(start));
    pendingBytes += data.length - start;
    if (pendingBytes > maxBytes) {
      onOversized(pendingBytes);
      pending = [];
      pendingBytes = 0;
      skipping = true;
    }
  });
}

/** Writes one message as one line. */
export function writeMessage(stream: Writable, message: unknown): void {
  stream.write(JSON.stringify(message) + '\n');
}

/**
 * Writes lines to a stream, every line queued during one turn of the event loop (every chunk read
 * in one poll phase and every message they held) in one `write`, on `setImmediate`: a write is a
 * system call and costs more than the JSON around it. Order is kept; nothing is written after the
 * stream ended.
 */
export class LineWriter {
  readonly #stream: Writable;
  #pending: string[] = [];
  #scheduled = false;

  constructor(stream: Writable) {
    this.#stream = stream;
  }

  /** Queues one message, serialised. */
  message(message: unknown): void {
    this.line(JSON.stringify(message));
  }

  /** Queues one line (without its newline). */
  line(text: string): void {
    this.#pending.push(text);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#flush);
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const lines = this.#pending;
    this.#pending = [];
    const stream = this.#stream;
    if (stream.destroyed || stream.writableEnded) return;
    stream.write(lines.length === 1 ? lines[0] + '\n' : lines.join('\n') + '\n');
  };
}

/** The longest run of digits a JSON integer may have and still be read as the same number by every parser (2^53 has 16). */
const MAX_EXACT_DIGITS = 15;

/**
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
export function isFaithfulLine(line: string, parsed: unknown): boolean {
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
        if (k - first > MAX_EXACT_DIGITS) return false;
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
    return colons === keysOf(parsed);
  } catch {
    // Nested too deep to walk here: the slow way.
    return false;
  }
}

/** The number of object keys in a parsed JSON value, or -1 when one of them is `__proto__`. */
function keysOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) {
      const inner = keysOf(item);
      if (inner < 0) return -1;
      count += inner;
    }
    return count;
  }
  if (Object.hasOwn(value, '__proto__')) return -1;
  for (const key in value) {
    const inner = keysOf((value as Record<string, unknown>)[key]);
    if (inner < 0) return -1;
    count += inner + 1;
  }
  return count;
}
