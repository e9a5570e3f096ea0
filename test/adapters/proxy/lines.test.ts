import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFaithfulLine, readLines } from '../../../src/adapters/proxy/lines.js';

const faithful = (line: string) => isFaithfulLine(line, JSON.parse(line));

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
    const piece = fc.constantFrom('a', 'bc', '\n', '\r\n', 'é', '€', '😀', '{"k":"v"}', '\n\n', 'x'.repeat(30));
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 60 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.integer({ min: 4, max: 64 }),
        (pieces, cuts, maxBytes) => {
          const input = Buffer.from(pieces.join(''));
          const points = [...new Set(cuts.map((c) => c % (input.length + 1)))].sort((a, b) => a - b);
          const chunks: Buffer[] = [];
          let at = 0;
          for (const p of [...points, input.length]) {
            if (p > at) chunks.push(input.subarray(at, p));
            at = Math.max(at, p);
          }
          expect(streamed(chunks, maxBytes)).toEqual(reference(input, maxBytes));
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
