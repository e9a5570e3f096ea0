import { isUtf8 } from 'node:buffer';
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

/** What the scan stops at, by byte: outside strings a quote, a colon, a newline, a minus or a digit; inside them a quote, a newline, a backslash. */
const QUOTE = 1;
const COLON = 2;
const NEWLINE = 3;
const NUMBER = 4;
const BACKSLASH = 5;
const OUTSIDE = new Uint8Array(256);
const INSIDE = new Uint8Array(256);
const DIGIT = new Uint8Array(256);
OUTSIDE[0x22] = QUOTE;
OUTSIDE[0x3a] = COLON;
OUTSIDE[0x0a] = NEWLINE;
OUTSIDE[0x2d] = NUMBER;
for (let d = 0x30; d <= 0x39; d++) OUTSIDE[d] = NUMBER;
for (let d = 0x30; d <= 0x39; d++) DIGIT[d] = 1;
INSIDE[0x22] = QUOTE;
INSIDE[0x0a] = NEWLINE;
INSIDE[0x5c] = BACKSLASH;

/**
 * Scans one line's bytes from `from` up to the first newline or `to`, whichever comes first, and
 * returns where it stopped; the line's keys (or `UNFAITHFUL`) are left in `scanned`. One pass, no
 * allocation: strings are skipped byte by byte (their escapes included), and outside them a colon
 * counts as a key and a number that not every parser reads as the same double marks the line
 * unfaithful: a fraction, an exponent, a sign on zero, or more than 15 digits. Each byte costs one
 * table look-up (`OUTSIDE`, `INSIDE`) unless it is one of those few.
 */
function scanLine(data: Uint8Array, from: number, to: number): number {
  let keys = 0;
  let i = from;
  while (i < to) {
    const kind = OUTSIDE[data[i]!]!;
    if (kind === 0) i++;
    else if (kind === QUOTE) {
      // A string: up to the next quote that no backslash escapes. A newline ends the line even here.
      const open = i;
      i++;
      let inside = 0;
      for (;;) {
        if (i >= to) return unfaithful(to);
        inside = INSIDE[data[i]!]!;
        if (inside === 0) {
          if (i - open > LONG_STRING) break;
          i++;
        } else if (inside === QUOTE) break;
        else if (inside === NEWLINE) return unfaithful(i);
        else {
          if (i + 1 < to && data[i + 1] === 0x0a) return unfaithful(i + 1);
          i += 2;
        }
      }
      if (inside !== QUOTE) {
        // A long string (at a byte that is no backslash): the rest of it by indexOf, which is faster per byte than this loop.
        const close = closingQuote(data, i, to);
        const nl = data.indexOf(0x0a, i);
        if (nl !== -1 && nl < to && (close === -1 || nl < close)) return unfaithful(nl);
        if (close === -1) return unfaithful(to);
        i = close;
      }
      i++;
    } else if (kind === COLON) {
      keys++;
      i++;
    } else if (kind === NEWLINE) break;
    else {
      // A number: only an integer of at most 15 digits, not -0, goes through unchanged.
      const c = data[i]!;
      let k = c === 0x2d ? i + 1 : i;
      const first = k;
      while (k < to && DIGIT[data[k]!] === 1) k++;
      const next = k < to ? data[k] : 0;
      if ((c === 0x2d && data[first] === 0x30) || k - first > MAX_EXACT_DIGITS || next === 0x2e || next === 0x65 || next === 0x45)
        return unfaithful(skipToNewline(data, k, to));
      i = k;
    }
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

/**
 * Receives each complete line (without its newline and a CR before it) and its keys (see
 * `UNFAITHFUL`). `bytes`, when given, are the line's own bytes followed by its newline, exactly the
 * UTF-8 of `line + '\n'`: a writer may pass them on as they are instead of encoding `line` again.
 * They are given for a line that is a chunk's only one (a view of the chunk, never copied) or that
 * several chunks made up and that ends the lines of its last chunk; not for a line that ended in
 * CR LF, nor for the lines of a chunk that holds several (a view each would cost more than the
 * text they are cut from): a `LineWriter` asked to write such a line's text while it is being
 * handled writes its bytes all the same, the lines of one chunk as one view of it (see `currentText`).
 */
export type LineHandler = (line: string, keys: number, bytes?: Buffer) => void;

/** U+FFFD in UTF-8: decoding puts it in place of bytes that are not UTF-8. */
const REPLACEMENT = Buffer.from('\uFFFD');

/**
 * Whether `bytes` decode to text without a U+FFFD: they are UTF-8 (so decoding replaced nothing) and
 * hold no encoded U+FFFD of their own. Both checks are native passes over the bytes, far cheaper
 * than searching the decoded text.
 */
function decodesClean(bytes: Buffer): boolean {
  return isUtf8(bytes) && bytes.indexOf(REPLACEMENT) === -1;
}

/**
 * Splits a byte stream into newline-delimited lines (MCP's stdio framing), without ever holding
 * more than one line plus a chunk. A line over `maxBytes` is reported to `onOversized` and skipped.
 * The complete lines of a chunk are found and checked for parser differentials in one pass over
 * the bytes, then decoded with one `toString` (a newline byte is never part of a multi-byte UTF-8
 * sequence, so this decodes exactly as line by line would); a line that decodes to a U+FFFD
 * (perhaps bytes that were not UTF-8) is unfaithful.
 */
export function readLines(stream: Readable, onLine: LineHandler, onOversized: (bytes: number) => void, maxBytes = MAX_LINE_BYTES): void {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  // Where each complete line of a chunk ends and its keys, reused from chunk to chunk.
  const ends: number[] = [];
  const keys: number[] = [];
  let busy = false;
  // `clean`: the line is known to hold no U+FFFD. `bytes`: its bytes with the newline, where a view of them costs nothing extra.
  const emit = (text: string, lineKeys: number, clean: boolean, bytes: Buffer | undefined) => {
    if (text.charCodeAt(text.length - 1) === 0x0d) {
      const line = text.slice(0, -1);
      onLine(line, clean || lineKeys === UNFAITHFUL || !line.includes('\uFFFD') ? lineKeys : UNFAITHFUL);
    } else onLine(text, clean || lineKeys === UNFAITHFUL || !text.includes('\uFFFD') ? lineKeys : UNFAITHFUL, bytes);
  };
  // A line of a chunk that holds several, its bytes `data[from, nl]` with the newline: while its handler runs, a writer
  // asked to write the same text writes those bytes instead (see `LineWriter.line`), where they are exactly its UTF-8.
  const emitInChunk = (text: string, lineKeys: number, clean: boolean, data: Buffer, from: number, nl: number) => {
    if (text.charCodeAt(text.length - 1) === 0x0d) return emit(text, lineKeys, clean, undefined);
    let exact = clean;
    if (!clean && lineKeys !== UNFAITHFUL) {
      exact = !text.includes('\uFFFD');
      if (!exact) lineKeys = UNFAITHFUL;
    }
    if (exact) {
      currentText = text;
      currentChunk = data;
      currentFrom = from;
      currentTo = nl + 1;
    }
    onLine(text, lineKeys);
    currentText = undefined;
    currentChunk = undefined;
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
    // The lines of this chunk end at its last newline; the start of a line after it is kept unscanned (it is scanned once whole).
    const to = data[length - 1] === 0x0a ? length : data.lastIndexOf(0x0a) + 1;
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
          pending.push(data.subarray(0, first + 1));
          const line = Buffer.concat(pending);
          scanLine(line, 0, bytes);
          const text = line.toString('utf8', 0, bytes);
          // Its bytes when no line follows in this chunk (else the lines go as text, written together with this one).
          emit(
            text,
            scanned,
            (text.length === bytes && !text.includes('\uFFFD')) || decodesClean(line),
            first + 1 === to ? line : undefined,
          );
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
    while (from < to) {
      // A newline is at `to - 1` at the latest, so the scan always ends at one.
      const end = scanLine(data, from, to);
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
            if (count === 1) emit(text, lineKeys[0]!, true, start === 0 && last === length - 1 ? data : data.subarray(start, last + 1));
            else {
              let at = 0;
              for (let j = 0; j < count; j++) {
                const end = lineEnds[j]! - start;
                emitInChunk(text.slice(at, end), lineKeys[j]!, true, data, start + at, start + end);
                at = end + 1;
              }
            }
          } else {
            const clean = decodesClean(data.subarray(start, last));
            if (count === 1) emit(text, lineKeys[0]!, clean, start === 0 && last === length - 1 ? data : data.subarray(start, last + 1));
            else {
              let at = 0;
              let byteAt = start;
              for (let j = 0; j < count; j++) {
                const nl = j === count - 1 ? text.length : text.indexOf('\n', at);
                emitInChunk(text.slice(at, nl), lineKeys[j]!, clean, data, byteAt, lineEnds[j]!);
                at = nl + 1;
                byteAt = lineEnds[j]! + 1;
              }
            }
          }
        } else {
          let at = start;
          for (let j = 0; j < count; j++) {
            const nl = lineEnds[j]!;
            if (nl - at > maxBytes) onOversized(nl - at);
            else emit(data.toString('utf8', at, nl), lineKeys[j]!, false, undefined);
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

/**
 * The line `readLines` is handing to its handler now, when it is one of several in its chunk and
 * its bytes there, `currentChunk[currentFrom, currentTo)` with the newline, are exactly the UTF-8
 * of `currentText + '\n'` (no CR, nothing decoded to U+FFFD); `undefined` otherwise. A writer asked
 * to write that text queues a range of those bytes instead of encoding the text again (see
 * `LineWriter.line`): the same bytes whichever line the text came from, so it needs no knowledge of
 * where the text came from, and the ranges of consecutive lines go out as one view of the chunk.
 */
let currentText: string | undefined;
let currentChunk: Buffer | undefined;
let currentFrom = 0;
let currentTo = 0;

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
  /**
   * What is queued, in order: text (lines with their newlines, run together) and original bytes
   * (a line `readLines` read, with its newline). Mostly one part (`#first`); `#more` holds the
   * others when text and bytes alternate.
   */
  #first: string | Buffer | undefined = undefined;
  #more: (string | Buffer)[] | null = null;
  /**
   * The last part queued, when it is a range of a chunk's bytes (see `currentText`): kept as offsets
   * until another part comes or the lines are written, so the lines of one chunk that go on as they
   * came make one view of it, and no text is joined or encoded for them.
   */
  #rangeChunk: Buffer | undefined = undefined;
  #rangeFrom = 0;
  #rangeTo = 0;
  #scheduled = false;

  constructor(stream: Writable) {
    this.#stream = stream;
  }

  /** Queues one message, serialised. */
  message(message: unknown): void {
    this.line(JSON.stringify(message));
  }

  /**
   * Queues one line (without its newline). `bytes`, when given, are exactly the UTF-8 of `text`
   * and its newline (see `LineHandler`), and are written instead of encoding `text` again; so are
   * the bytes of the line `readLines` is handing to its handler, when `text` is that line's text.
   */
  line(text: string, bytes?: Buffer): void {
    if (bytes === undefined && currentChunk !== undefined && text === currentText) this.#range(currentChunk, currentFrom, currentTo);
    else {
      if (this.#rangeChunk !== undefined) this.#endRange();
      const first = this.#first;
      if (first === undefined) this.#first = bytes ?? text + '\n';
      else if (bytes === undefined && this.#more === null && typeof first === 'string') this.#first = first + text + '\n';
      else this.#append(bytes ?? text + '\n');
    }
    if (this.#scheduled) return;
    this.#scheduled = true;
    if (batchDepth > 0) dirty[dirtyCount++] = this;
    else queueMicrotask(this.#flushLater);
  }

  #range(chunk: Buffer, from: number, to: number): void {
    if (this.#rangeChunk === chunk && this.#rangeTo === from) {
      this.#rangeTo = to;
      return;
    }
    if (this.#rangeChunk !== undefined) this.#endRange();
    this.#rangeChunk = chunk;
    this.#rangeFrom = from;
    this.#rangeTo = to;
  }

  /** The range queued last, as a part like the others. */
  #endRange(): void {
    const chunk = this.#rangeChunk!;
    const from = this.#rangeFrom;
    const to = this.#rangeTo;
    this.#rangeChunk = undefined;
    const part = from === 0 && to === chunk.length ? chunk : chunk.subarray(from, to);
    if (this.#first === undefined) this.#first = part;
    else this.#append(part);
  }

  #append(part: string | Buffer): void {
    const more = (this.#more ??= []);
    const tail = more.length === 0 ? undefined : more[more.length - 1];
    if (typeof part === 'string' && typeof tail === 'string') more[more.length - 1] = tail + part;
    else more.push(part);
  }

  /** Writes what is queued, in one write. */
  flush(): void {
    this.#scheduled = false;
    if (this.#rangeChunk !== undefined) this.#endRange();
    const first = this.#first;
    if (first === undefined) return;
    const more = this.#more;
    this.#first = undefined;
    this.#more = null;
    const stream = this.#stream;
    if (stream.destroyed || stream.writableEnded) return;
    stream.write(more === null ? first : Buffer.concat([first, ...more].map((p) => (typeof p === 'string' ? Buffer.from(p) : p))));
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

/**
 * The number of object keys in a parsed JSON value, or -1 when one of them is `__proto__`. A
 * `for...in` over a parsed object sees exactly its own keys (its prototype is `Object.prototype`,
 * whose keys are not enumerable, an own `__proto__` member included), so the key is checked as it
 * comes; only objects and arrays are walked into.
 */
function keysOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item !== 'object' || item === null) continue;
      const inner = keysOf(item);
      if (inner < 0) return -1;
      count += inner;
    }
    return count;
  }
  for (const key in value) {
    if (key === '__proto__') return -1;
    const item = (value as Record<string, unknown>)[key];
    count++;
    if (typeof item !== 'object' || item === null) continue;
    const inner = keysOf(item);
    if (inner < 0) return -1;
    count += inner;
  }
  return count;
}
