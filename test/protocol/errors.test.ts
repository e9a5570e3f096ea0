import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GuardCode, WIRE_ANSWERS, wireAnswer } from '../../src/protocol/errors.js';
import { ServerCode } from '../../src/server/errors.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const documented = new Set([...readme.matchAll(/^\| `(E_[A-Z_]+)` \|/gm)].map((m) => m[1]));
const source = readFileSync(new URL('../../src/protocol/errors.ts', import.meta.url), 'utf8');

describe('guard codes', () => {
  it('are documented once in the README table, client and server companion alike', () => {
    const all = [...Object.values(GuardCode), ...Object.values(ServerCode)];
    expect(new Set(all).size).toBe(all.length);
    expect([...documented].sort()).toEqual([...all].sort());
  });

  it('each carry a doc comment', () => {
    for (const [key, code] of Object.entries(GuardCode))
      expect(source, `${key}: ${code}`).toMatch(new RegExp(`\\*/\\n  ${key}: '${code}'`));
  });

  it('map to one wire answer by who receives it', () => {
    expect(wireAnswer(GuardCode.sensitiveField, 'server', { fields: [] })).toEqual({
      rpc: -32602,
      data: { code: 'E_SENSITIVE_FIELD', fields: [] },
    });
    expect(wireAnswer(GuardCode.internal, 'server').rpc).toBe(-32603);
    expect(wireAnswer(GuardCode.retryExhausted, 'host').rpc).toBe(-32600);
    expect(wireAnswer(GuardCode.alreadyAccepted, 'host').rpc).toBe(-32603);
    expect(Object.isFrozen(WIRE_ANSWERS)).toBe(true);
  });
});
