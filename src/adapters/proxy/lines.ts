import type { Readable, Writable } from 'node:stream';

/** The longest line accepted from either side (the SDK's stdio default buffer). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/**
 * What the framing knows of a line besides its text: the number of object keys its text holds
 * (colons outside strings), or `UNFAITHFUL` when the text holds something JSON parsers read
 * differently (see `isFaithfulLine`). Compared with the keys of the parsed value, it tells whether
 * the original bytes may be passed on.
 */
export const UNFAITHFUL = -1;

/** The longest run of digits a JSON integer may have and still be read as the same number by every parser (2^53 has 16). */
const MAX_EXACT_DIGITS = 15;

/**
 * Scans one line's bytes from `from` up to the first newline or `to`, whichever comes first, and
 * returns where it stopped; the line's keys (or `UNFAITHFUL`) are left in `scanned`. One pass, no
 * allocation: strings are skipped byte by byte (their escapes included), and outside them a colon
 * counts as a key and a number that not every parser reads as the same double marks the line
 * unfaithful: a fraction, an exponent, a sign on zero, or more than 15 digits.
 */
function scanLine(data: Uint8Array, from: number, to: number): number {
  let keys = 0;
  let i = from;
  while (i < to) {
    const c = data[i]!;
    if (c === 0x22) {
      // A string: up to the next quote that no backslash escapes. A newline ends the line even here.
      const open = i;
      i++;
      for (;;) {
        if (i >= to) return unfaithful(to);
        const d = data[i]!;
        if (d === 0x22) break;
        if (d === 0x0a) return unfaithful(i);
        if (d === 0x5c) {
          if (i + 1 < to && data[i + 1] === 0x0a) return unfaithful(i + 1);
          i += 2;
        } else if (i - open > LONG_STRING) {
          // A long string: the rest of it by indexOf, which is faster per byte than this loop.
          const close = closingQuote(data, i, to);
          const nl = data.indexOf(0x0a, i);
          if (nl !== -1 && nl < to && (close === -1 || nl < close)) return unfaithful(nl);
          if (close === -1) return unfaithful(to);
          i = close;
          break;
        } else i++;
      }
      i++;
    } else if (c === 0x3a) {
      keys++;
      i++;
    } else if (c === 0x0a) break;
    else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      // A number: only an integer of at most 15 digits, not -0, goes through unchanged.
      let k = c === 0x2d ? i + 1 : i;
      const first = k;
      while (k < to && data[k]! >= 0x30 && data[k]! <= 0x39) k++;
      const next = k < to ? data[k] : 0;
      if ((c === 0x2d && data[first] === 0x30) || k - first > MAX_EXACT_DIGITS || next === 0x2e || next === 0x65 || next === 0x45)
        return unfaithful(skipToNewline(data, k, to));
      i = k;
    } else i++;
  }
  scanned = keys;
  return i;
}

/** Past this many bytes a string's end is looked for with indexOf. */
const LONG_STRING = 48;

/** The first quote at or after `from` (and before `to`) that an even number of backslashes precedes, or -1. */
function closingQuote(data: Uint8Array, from: number, to: number): number {
  for (let at = from; ; at++) {
    at = data.indexOf(0x22, at);
    if (at === -1 || at >= to) return -1;
    let slashes = 0;
    while (data[at - 1 - slashes] === 0x5c) slashes++;
    if ((slashes & 1) === 0) return at;
  }
}

/** The keys of the line `scanLine` scanned last (module state, so scanning allocates nothing). */
let scanned = 0;

function unfaithful(at: number): number {
  scanned = UNFAITHFUL;
  return at;
}

function skipToNewline(data: Uint8Array, from: number, to: number): number {
  const nl = data.indexOf(0x0a, from);
  return nl === -1 || nl > to ? to : nl;
}

/** Receives each complete line (without its newline and a CR before it) and its keys (see `UNFAITHFUL`). */
export type LineHandler = (line: string, keys: number) => void;

/**
 * Splits a byte stream into newline-delimited lines (MCP's stdio framing), without ever holding
 * more than one line plus a chunk. A line over `maxBytes` is reported to `onOversized` and skipped.
 * The complete lines of a chunk are found and checked for parser differentials in one pass over
 * the bytes, then decoded with one `toString` (a newline byte is never part of a multi-byte UTF-8
 * sequence, so this decodes exactly as line by line would); a line that held bytes other than
 * ASCII and decodes to a U+FFFD (perhaps bytes that were not UTF-8) is unfaithful.
 */
export function readLines(stream: Readable, onLine: LineHandler, onOversized: (bytes: number) => void, maxBytes = MAX_LINE_BYTES): void {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  // Where each complete line of a chunk ends and its keys, reused from chunk to chunk.
  const ends: number[] = [];
  const keys: number[] = [];
  let busy = false;
  // `ascii`: the line is known to be ASCII, so it cannot hold a U+FFFD.
  const emit = (text: string, lineKeys: number, ascii: boolean) => {
    const line = text.charCodeAt(text.length - 1) === 0x0d ? text.slice(0, -1) : text;
    onLine(line, ascii || lineKeys === UNFAITHFUL || !line.includes('\uFFFD') ? lineKeys : UNFAITHFUL);
  };
  // Whatever the lines of one chunk make the proxy write goes out when the chunk is done (see LineWriter).
  stream.on('data', (chunk: Buffer | string) => {
    batchDepth++;
    try {
      onData(chunk);
    } finally {
      endBatch();
    }
  });

  function onData(chunk: Buffer | string): void {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const length = data.length;
    let start = 0;
    if (pendingBytes > 0 || skipping) {
      const first = data.indexOf(0x0a);
      if (first === -1) {
        if (!skipping) hold(data, 0);
        return;
      }
      // The end of the line earlier chunks began.
      if (!skipping) {
        const bytes = pendingBytes + first;
        if (bytes > maxBytes) onOversized(bytes);
        else {
          pending.push(data.subarray(0, first));
          const line = Buffer.concat(pending);
          scanLine(line, 0, line.length);
          emit(line.toString('utf8'), scanned, false);
        }
      }
      pending = [];
      pendingBytes = 0;
      skipping = false;
      start = first + 1;
    }
    // The lines wholly in this chunk: scanned once, then decoded once.
    const lineEnds = busy ? [] : ends;
    const lineKeys = busy ? [] : keys;
    let count = 0;
    let from = start;
    for (;;) {
      const end = scanLine(data, from, length);
      if (end >= length) break;
      lineEnds[count] = end;
      lineKeys[count] = scanned;
      count++;
      from = end + 1;
    }
    if (count > 0) {
      const last = lineEnds[count - 1]!;
      busy = true;
      try {
        if (last - start <= maxBytes) {
          // No line in here can be over the limit: decode once, cut the text.
          const text = data.toString('utf8', start, last);
          // As many characters as bytes and no U+FFFD (one per byte that is not UTF-8): ASCII, characters are bytes.
          if (text.length === last - start && !text.includes('\uFFFD')) {
            let at = 0;
            for (let j = 0; j < count; j++) {
              const end = lineEnds[j]! - start;
              emit(j === 0 && end === text.length ? text : text.slice(at, end), lineKeys[j]!, true);
              at = end + 1;
            }
          } else {
            let at = 0;
            for (let j = 0; j < count; j++) {
              const nl = j === count - 1 ? text.length : text.indexOf('\n', at);
              emit(at === 0 && nl === text.length ? text : text.slice(at, nl), lineKeys[j]!, false);
              at = nl + 1;
            }
          }
        } else {
          let at = start;
          for (let j = 0; j < count; j++) {
            const nl = lineEnds[j]!;
            if (nl - at > maxBytes) onOversized(nl - at);
            else {
              emit(data.toString('utf8', at, nl), lineKeys[j]!, false);
            }
            at = nl + 1;
          }
        }
      } finally {
        if (lineEnds === ends) busy = false;
      }
    }
    if (from < length) hold(data, from);
  }

  /** Keeps the start of a line that a later chunk ends, or gives up on it once it is over the limit. */
  function hold(data: Buffer, from: number): void {
    pending.push(from === 0 ? data : data.subarray(from));
    pendingBytes += data.length - from;
    if (pendingBytes > maxBytes) {
      onOversized(pendingBytes);
      pending = [];
      pendingBytes = 0;
      skipping = true;
    }
  }
}

/** Whether a line is empty or only spacing (skipped by both sides); a line that opens a JSON object or array is decided at once. */
export function isBlank(line: string): boolean {
  const first = line.charCodeAt(0);
  return first !== 0x7b && first !== 0x5b && line.trim() === '';
}

/** Writes one message as one line. */
export function writeMessage(stream: Writable, message: unknown): void {
  stream.write(JSON.stringify(message) + '\n');
}

/** How many chunks `readLines` is handling now (nested when a write makes another stream emit data at once). */
let batchDepth = 0;
/** Writers with lines queued while a chunk was being handled: flushed when it is done. */
const dirty: LineWriter[] = [];
let dirtyCount = 0;

function endBatch(): void {
  if (--batchDepth > 0) return;
  // A write may make another reader handle a chunk now, and that one flushes the list too: a flush with nothing queued does nothing.
  for (let i = 0; i < dirtyCount; i++) dirty[i]!.flush();
  dirtyCount = 0;
}

/**
 * Writes lines to a stream: every line queued by one piece of work in one `write`, as soon as
 * that work is done, so a write is one system call per chunk read, not per message, and waits
 * for nothing. The work is a chunk `readLines` handles (every message it held, with what the
 * guard answered), and the lines are written synchronously when its last line has been handled;
 * a line queued outside such a chunk (a deferred decision, a timer) goes out in a microtask.
 * Order is kept; nothing is written after the stream ended.
 */
export class LineWriter {
  readonly #stream: Writable;
  /** The queued lines, each with its newline. */
  #pending = '';
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
    this.#pending = this.#pending === '' ? text + '\n' : this.#pending + text + '\n';
    if (this.#scheduled) return;
    this.#scheduled = true;
    if (batchDepth > 0) dirty[dirtyCount++] = this;
    else queueMicrotask(this.#flushLater);
  }

  /** Writes what is queued, in one write. */
  flush(): void {
    this.#scheduled = false;
    const text = this.#pending;
    if (text === '') return;
    this.#pending = '';
    const stream = this.#stream;
    if (stream.destroyed || stream.writableEnded) return;
    stream.write(text);
  }

  readonly #flushLater = (): void => this.flush();
}

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
 * The text's part is the scan `readLines` does on the bytes as it splits them (its `keys`); this
 * is the same check for a line on its own.
 */
export function isFaithfulLine(line: string, parsed: unknown): boolean {
  if (line.includes('\uFFFD')) return false;
  const bytes = Buffer.from(line);
  // Text with newlines (indented JSON, never a line of the framing): outside strings they are spacing.
  let keys = 0;
  for (let from = 0; from <= bytes.length; ) {
    const end = scanLine(bytes, from, bytes.length);
    if (scanned === UNFAITHFUL) return false;
    keys += scanned;
    from = end + 1;
  }
  return keysMatch(keys, parsed);
}

/**
 * Whether a line whose text holds `keys` object keys (from `readLines`) means exactly its parse
 * `parsed`: every key in the text is a key of the value (no duplicate collapsed), none is `__proto__`.
 */
export function keysMatch(keys: number, parsed: unknown): boolean {
  if (keys === UNFAITHFUL) return false;
  try {
    return keys === keysOf(parsed);
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
