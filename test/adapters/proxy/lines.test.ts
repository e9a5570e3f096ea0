import { PassThrough, Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFaithfulLine, keysMatch, LineWriter, readLines } from '../../../src/adapters/proxy/lines.js';
import { referenceFaithful } from './reference-faithful.js';

const faithful = (line: string) => isFaithfulLine(line, JSON.parse(line));

/** `input` cut into chunks at the given points (each taken modulo the length + 1; repeats and empty chunks dropped). */
function cut(input: Buffer, cuts: readonly number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (input.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let at = 0;
  for (const p of [...points, input.length]) {
    if (p > at) chunks.push(input.subarray(at, p));
    at = Math.max(at, p);
  }
  return chunks;
}

describe('isFaithfulLine', () => {
  it('accepts what JSON.stringify writes for messages of integers, strings, literals and nesting', () => {
    for (const value of [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: { a: [1, -2, true, false, null, 'z'], b: {} } } },
      { jsonrpc: '2.0', id: 'a:b', result: { text: 'colons: "quoted" \\ back\\\\slashes \\" and ":" {} []' } },
      { jsonrpc: '2.0', id: 123456789012345, result: [] },
      [],
      { '': '' },
    ]) {
      expect(faithful(JSON.stringify(value)), JSON.stringify(value)).toBe(true);
      expect(faithful(JSON.stringify(value, null, 2)), 'indented').toBe(true);
    }
  });

  it('finds the end of strings that end in backslashes', () => {
    expect(faithful('{"a":"x\\\\","b":1}')).toBe(true);
    expect(faithful('{"a":"x\\\\\\"","b":1}')).toBe(true);
    expect(faithful('{"a":"\\\\","a":1}')).toBe(false);
  });

  it('refuses what parsers may read differently', () => {
    for (const line of [
      '{"a":1,"a":2}',
      '{"a":{"b":1,"b":1}}',
      '[{"a":1},{"b":1,"\\u0062":2}]',
      '{"__proto__":{}}',
      '{"a":1.5}',
      '{"a":1e3}',
      '{"a":1E3}',
      '{"a":-0}',
      '{"a":1234567890123456}',
      '{"a":"\uFFFD"}',
    ])
      expect(faithful(line), line).toBe(false);
  });

  it('never calls a line with a duplicate key faithful, and accepts every stringified value without numbers it cannot keep', () => {
    const key = fc.constantFrom('a', 'b', 'method', 'id', '__proto__', 'x:y', 'q"r');
    fc.assert(
      fc.property(fc.jsonValue(), key, fc.integer(), (value, k, n) => {
        const text = JSON.stringify({ [k]: n, wrap: value });
        // The same key once more, at the end: JSON.parse keeps this one.
        const doubled = `${text.slice(0, -1)},${JSON.stringify(k)}:${JSON.stringify(value)}}`;
        expect(faithful(doubled)).toBe(false);
        const plain = !/[.eE]|\d{16}|-0|__proto__/.test(text.replace(/"(?:[^"\\]|\\.)*"/g, (s) => (s.includes('__proto__') ? s : '""')));
        if (plain && !text.includes('\uFFFD')) expect(faithful(text)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('readLines', () => {
  /** What the framing means, computed on the whole input at once: complete lines, decoded, CR stripped, too long ones reported. */
  function reference(input: Buffer, maxBytes: number): (string | number)[] {
    const out: (string | number)[] = [];
    let from = 0;
    for (let nl = input.indexOf(0x0a); nl !== -1; from = nl + 1, nl = input.indexOf(0x0a, from)) {
      if (nl - from > maxBytes) out.push(-1);
      else out.push(input.toString('utf8', from, nl).replace(/\r$/, ''));
    }
    // A tail over the limit is reported as soon as it is over it.
    if (input.length - from > maxBytes) out.push(-1);
    return out;
  }

  function streamed(chunks: readonly Buffer[], maxBytes: number): (string | number)[] {
    const stream = new PassThrough();
    const out: (string | number)[] = [];
    readLines(
      stream,
      (line) => out.push(line),
      () => out.push(-1),
      maxBytes,
    );
    for (const chunk of chunks) stream.emit('data', chunk);
    return out;
  }

  it('reads the same lines however the bytes are cut into chunks, multi-byte characters and long lines included', () => {
    const piece = fc.constantFrom(
      'a',
      'bc',
      '\n',
      '\r\n',
      'é',
      '€',
      '😀',
      '{"k":"v"}',
      '\n\n',
      'x'.repeat(30),
      '"',
      '\\',
      ':',
      '-0',
      'y'.repeat(70),
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 60 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.integer({ min: 4, max: 64 }),
        (pieces, cuts, maxBytes) => {
          const input = Buffer.from(pieces.join(''));
          expect(streamed(cut(input, cuts), maxBytes)).toEqual(reference(input, maxBytes));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('splits a character whose bytes arrive in two chunks only where the line ends', () => {
    const bytes = Buffer.from('{"t":"😀"}\n');
    expect(streamed([bytes.subarray(0, 7), bytes.subarray(7)], 1024)).toEqual(['{"t":"😀"}']);
  });
});

describe('readLines: the keys it counts on the bytes', () => {
  /** Every line `readLines` emits for these chunks, with whether its keys let the original bytes through. */
  function verdicts(chunks: readonly Buffer[]): { line: string; faithful: boolean }[] {
    const stream = new PassThrough();
    const out: { line: string; faithful: boolean }[] = [];
    readLines(
      stream,
      (line, keys) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          return;
        }
        out.push({ line, faithful: keysMatch(keys, parsed) });
      },
      () => {},
    );
    for (const chunk of chunks) stream.emit('data', chunk);
    return out;
  }

  it('agrees with the string-based reference on every line, however the bytes are cut', () => {
    // Strings long enough for the indexOf path, with quotes and runs of backslashes near their ends.
    const text = fc.stringMatching(/^[a-z"\\:{}[\],0-9é€😀\u0000-\u001f ]{0,120}$/);
    const number = fc.constantFrom(
      '0',
      '-0',
      '-0.0',
      '12',
      '-12',
      '1.5',
      '1e3',
      '2E-1',
      '123456789012345',
      '1234567890123456',
      '-1234567890123456',
    );
    const key = fc.constantFrom('a', 'b', 'id', 'method', '__proto__', '\\u005f_proto__', 'x:y', 'q\\"r', 'a\\\\');
    const member = fc.oneof(
      fc.tuple(key, text).map(([k, v]) => `"${k}":${JSON.stringify(v)}`),
      fc.tuple(key, number).map(([k, v]) => `"${k}":${v}`),
      fc.tuple(key, fc.jsonValue({ maxDepth: 2 })).map(([k, v]) => `"${k}":${JSON.stringify(v)}`),
    );
    const line = fc.array(member, { maxLength: 6 }).map((members) => `{${members.join(',')}}`);
    // Raw bytes that are not UTF-8, put into a line's strings.
    const invalid = fc.constantFrom(Buffer.from([0x80]), Buffer.from([0xff, 0xfe]), Buffer.from([0xc3]), Buffer.from('\uFFFD'));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(line, fc.option(invalid, { freq: 5 }), fc.boolean()), { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (lines, cuts) => {
          const parts: Buffer[] = [];
          for (const [l, bad, crlf] of lines) {
            const at = l.indexOf('"', l.indexOf(':')) + 1;
            parts.push(
              bad === null || at === 0 ? Buffer.from(l) : Buffer.concat([Buffer.from(l.slice(0, at)), bad, Buffer.from(l.slice(at))]),
            );
            parts.push(Buffer.from(crlf ? '\r\n' : '\n'));
          }
          const got = verdicts(cut(Buffer.concat(parts), cuts));
          for (const { line: l, faithful } of got) expect(faithful, l).toBe(referenceFaithful(l, JSON.parse(l)));
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('finds the end of a long string by its quote, with escaped quotes and backslashes before it', () => {
    const long = 'x'.repeat(60);
    for (const value of [`${long}\\"`, `${long}\\\\`, `${long}\\\\\\"y`, `${long}:"`]) {
      const line = JSON.stringify({ a: value, b: 1 });
      expect(verdicts([Buffer.from(`${line}\n`)]), line).toEqual([{ line, faithful: true }]);
      const doubled = `{"a":${JSON.stringify(value)},"a":1}`;
      expect(verdicts([Buffer.from(`${doubled}\n`)]), doubled).toEqual([{ line: doubled, faithful: false }]);
    }
  });

  it('ends a line at its newline even inside a string, long, short or after a backslash', () => {
    const next = '{"b":"z"}';
    for (const open of [`{"a":"${'y'.repeat(80)}`, '{"a":"y', '{"a":"y\\\\', `{"a":"${'y'.repeat(80)}\\\\`]) {
      const stream = new PassThrough();
      const lines: [string, number][] = [];
      readLines(
        stream,
        (line, keys) => lines.push([line, keys]),
        () => {},
      );
      stream.emit('data', Buffer.from(`${open}\n${next}\n`));
      expect(lines, open).toEqual([
        [open, -1],
        [next, 1],
      ]);
    }
  });

  it('counts a line cut inside a long string once it is whole', () => {
    const line = JSON.stringify({ a: `${'y'.repeat(100)}\\"`, b: { c: 1 } });
    const bytes = Buffer.from(`${line}\n${line}\n`);
    for (const at of [5, 60, 100, line.length - 2, line.length + 40])
      expect(verdicts([bytes.subarray(0, at), bytes.subarray(at)]), String(at)).toEqual([
        { line, faithful: true },
        { line, faithful: true },
      ]);
  });
});

describe('LineWriter', () => {
  const sink = () => {
    const writes: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        writes.push(chunk.toString());
        done();
      },
    });
    return { stream, writes };
  };

  it('writes what the lines of one chunk queued in one write, as soon as the chunk is handled', () => {
    const input = new PassThrough();
    const out = sink();
    const writer = new LineWriter(out.stream);
    readLines(
      input,
      (line) => writer.line(line.toUpperCase()),
      () => {},
    );
    input.emit('data', Buffer.from('a\nb\nc\n'));
    // Synchronously: no waiting for a later tick or the end of the event-loop turn.
    expect(out.writes).toEqual(['A\nB\nC\n']);
    input.emit('data', Buffer.from('d\ne'));
    input.emit('data', Buffer.from('\n'));
    expect(out.writes).toEqual(['A\nB\nC\n', 'D\n', 'E\n']);
  });

  it('writes a line queued outside a chunk in a microtask, in order with the lines before it', async () => {
    const out = sink();
    const writer = new LineWriter(out.stream);
    writer.line('x');
    writer.message({ y: 1 });
    expect(out.writes).toEqual([]);
    await Promise.resolve();
    expect(out.writes).toEqual(['x\n{"y":1}\n']);
  });

  it('keeps every line and its order when a write makes another reader handle a chunk at once', () => {
    // host -> first reader -> writer into a pass-through -> second reader -> writer into the sink.
    const host = new PassThrough();
    const middle = new PassThrough();
    const out = sink();
    const first = new LineWriter(middle);
    const second = new LineWriter(out.stream);
    const back = new LineWriter(new PassThrough());
    readLines(
      host,
      (line) => {
        first.line(`1${line}`);
        back.line(line);
      },
      () => {},
    );
    readLines(
      middle,
      (line) => second.line(`2${line}`),
      () => {},
    );
    host.emit('data', Buffer.from('a\nb\n'));
    host.emit('data', Buffer.from('c\n'));
    expect(out.writes.join('')).toBe('21a\n21b\n21c\n');
  });
});

/** A `LineWriter` and the buffers its stream was given, in order. */
function recordingWriter(): { writer: LineWriter; writes: Buffer[] } {
  const writes: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push(chunk);
      done();
    },
  });
  return { writer: new LineWriter(out), writes };
}

/** Up to 40 pieces of input: the UTF-8 of `piece`'s texts, and bytes that are not UTF-8 (a lone continuation byte, a cut sequence). */
function byteParts(piece: fc.Arbitrary<string>): fc.Arbitrary<Buffer[]> {
  const bad = fc.constantFrom(Buffer.from([0x80]), Buffer.from([0xc3]), Buffer.from([0xef, 0xbf]));
  return fc.array(
    fc.oneof(
      piece.map((p) => Buffer.from(p)),
      bad,
    ),
    { maxLength: 40 },
  );
}

describe('readLines and LineWriter: the original bytes', () => {
  it('gives a line its own bytes with the newline (never after CR LF), exactly its UTF-8 when it decodes cleanly', () => {
    const piece = fc.constantFrom('a', '{"k":"v"}', 'é', '😀', '\uFFFD', ':', '"', 'x'.repeat(70), '\n', '\r\n', '\n\n');
    fc.assert(
      fc.property(byteParts(piece), fc.array(fc.nat(), { maxLength: 8 }), (parts, cuts) => {
        const input = Buffer.concat(parts);
        const expected: Buffer[] = [];
        for (let at = 0, nl = input.indexOf(0x0a); nl !== -1; at = nl + 1, nl = input.indexOf(0x0a, at))
          expected.push(input.subarray(at, nl + 1));
        const stream = new PassThrough();
        const got: { line: string; bytes: Buffer | undefined }[] = [];
        readLines(
          stream,
          (line, _keys, bytes) => got.push({ line, bytes }),
          () => {},
        );
        const points = [...new Set(cuts.map((c) => c % (input.length + 1)))].sort((a, b) => a - b);
        let at = 0;
        for (const p of [...points, input.length]) {
          if (p > at) stream.emit('data', input.subarray(at, p));
          at = Math.max(at, p);
        }
        expect(got).toHaveLength(expected.length);
        got.forEach(({ line, bytes }, i) => {
          const own = expected[i]!;
          if (own.length > 1 && own[own.length - 2] === 0x0d) expect(bytes).toBeUndefined();
          else if (bytes !== undefined) {
            expect(Buffer.compare(bytes, own)).toBe(0);
            if (!line.includes('\uFFFD')) expect(Buffer.compare(Buffer.from(`${line}\n`), own)).toBe(0);
          }
        });
      }),
      { numRuns: 1000 },
    );
  });

  it('gives the bytes of a chunk that is one line, and of a line several chunks made up, as views or one copy', () => {
    const got: (Buffer | undefined)[] = [];
    const stream = new PassThrough();
    readLines(
      stream,
      (_line, _keys, bytes) => got.push(bytes),
      () => {},
    );
    const one = Buffer.from('{"a":"é"}\n');
    stream.emit('data', one);
    stream.emit('data', Buffer.from('{"b":'));
    stream.emit('data', Buffer.from('1}\n'));
    stream.emit('data', Buffer.from('{"c":'));
    stream.emit('data', Buffer.from('2}\n{"d":3}\n{"e":4}\n'));
    expect(got[0]).toBe(one);
    expect(got[1]?.toString()).toBe('{"b":1}\n');
    // The lines of a chunk that holds several are given as text only.
    expect(got.slice(2)).toEqual([undefined, undefined, undefined]);
  });

  it('writes the lines of a packed chunk that go on as they came as one view of the chunk', () => {
    const writes: (Buffer | string)[] = [];
    const out = new Writable({
      decodeStrings: false,
      write(chunk: Buffer | string, _encoding, done) {
        writes.push(chunk);
        done();
      },
    });
    const writer = new LineWriter(out);
    const input = new PassThrough();
    readLines(
      input,
      (line) => writer.line(line),
      () => {},
    );
    const chunk = Buffer.from('{"a":1}\n{"b":"é"}\n{"c":3}\n{"d":');
    input.emit('data', chunk);
    expect(writes).toHaveLength(1);
    const [written] = writes as Buffer[];
    expect(Buffer.isBuffer(written)).toBe(true);
    // The chunk's own memory, its complete lines: nothing joined, copied or encoded.
    expect(written!.buffer).toBe(chunk.buffer);
    expect(written!.byteOffset).toBe(chunk.byteOffset);
    expect(written!.toString()).toBe('{"a":1}\n{"b":"é"}\n{"c":3}\n');
  });

  it('writes a line of a packed chunk from its bytes only where they are exactly the UTF-8 of its text', () => {
    // A byte that is not UTF-8 (read as U+FFFD), a CR before the newline, a U+FFFD of its own: each written as its text.
    // An unfaithful line (a fraction) with such a byte too: its keys say nothing of its bytes.
    const parts = [
      Buffer.from('{"a":"'),
      Buffer.from([0x80]),
      Buffer.from('"}\n{"b":1}\r\n{"c":"\uFFFD"}\n{"e":1.5,"f":"'),
      Buffer.from([0xc3]),
      Buffer.from('"}\n{"d":2}\n'),
    ];
    const input = Buffer.concat(parts);
    for (const chunkBytes of [[input], [input.subarray(0, 9), input.subarray(9)]]) {
      const { writer, writes } = recordingWriter();
      const stream = new PassThrough();
      const lines: string[] = [];
      readLines(
        stream,
        (line) => {
          lines.push(line);
          writer.line(line);
        },
        () => {},
      );
      for (const c of chunkBytes) stream.emit('data', c);
      expect(lines).toEqual(['{"a":"\uFFFD"}', '{"b":1}', '{"c":"\uFFFD"}', '{"e":1.5,"f":"\uFFFD"}', '{"d":2}']);
      expect(Buffer.concat(writes).toString('latin1')).toBe(Buffer.from(lines.map((l) => `${l}\n`).join('')).toString('latin1'));
    }
  });

  it('writes exactly the UTF-8 of what it was asked to, whatever the lines and chunks, the text of the line being read or not', () => {
    const piece = fc.constantFrom('{"k":"v"}', 'é', '😀', '\uFFFD', '"', 'x'.repeat(70), '\n', '\r\n', '\n\n', 'a');
    const how = fc.constantFrom('same', 'copy', 'other', 'twice', 'message');
    fc.assert(
      fc.property(
        byteParts(piece),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.array(how, { minLength: 1, maxLength: 8 }),
        (parts, cuts, hows) => {
          const { writer, writes } = recordingWriter();
          const expected: string[] = [];
          const stream = new PassThrough();
          let n = 0;
          readLines(
            stream,
            (line) => {
              const mode = hows[n++ % hows.length];
              if (mode === 'same') writer.line(line);
              // The same text, another string: the same bytes.
              else if (mode === 'copy') writer.line(` ${line}`.slice(1));
              else if (mode === 'other') writer.line(`${line}!`);
              else if (mode === 'twice') {
                writer.line(line);
                writer.line(line);
              } else writer.message({ line });
              if (mode === 'other') expected.push(`${line}!\n`);
              else if (mode === 'twice') expected.push(`${line}\n`, `${line}\n`);
              else if (mode === 'message') expected.push(`${JSON.stringify({ line })}\n`);
              else expected.push(`${line}\n`);
            },
            () => {},
          );
          for (const chunk of cut(Buffer.concat(parts), cuts)) stream.emit('data', chunk);
          expect(Buffer.concat(writes).equals(Buffer.from(expected.join('')))).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('writes queued text and bytes in order and exactly, in one write', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'é😀', '{"x":1}', ''), fc.constantFrom('text', 'next', 'apart')), { maxLength: 12 }),
        (ops) => {
          const { writer, writes } = recordingWriter();
          // One chunk of all the lines, as readLines would hold it: "next" takes the following view of it, "apart" a copy.
          const whole = Buffer.from(ops.map(([t]) => `${t}\n`).join(''));
          let at = 0;
          const input = new PassThrough();
          readLines(
            input,
            () => {
              for (const [t, how] of ops) {
                const own = Buffer.byteLength(`${t}\n`);
                if (how === 'text') writer.line(t);
                else writer.line(t, how === 'next' ? whole.subarray(at, at + own) : Buffer.from(`${t}\n`));
                at += own;
              }
            },
            () => {},
          );
          input.emit('data', Buffer.from('go\n'));
          expect(writes.length).toBeLessThanOrEqual(1);
          expect(Buffer.concat(writes).toString()).toBe(ops.map(([t]) => `${t}\n`).join(''));
        },
      ),
      { numRuns: 500 },
    );
  });
});
