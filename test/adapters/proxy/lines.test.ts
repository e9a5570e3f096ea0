import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFaithfulLine } from '../../../src/adapters/proxy/lines.js';

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
    ]) expect(faithful(line), line).toBe(false);
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
