import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonRpcRequest } from '../../src/protocol/jsonrpc.js';
import {
  capabilitiesOf,
  claimOf,
  decodeInputRequired,
  encodeInputRequired,
  isInputRequired,
  originalDigest,
  retryPartsOf,
  withCapabilities,
  withInputResponses,
} from '../../src/wire/rev2026-07-28.js';

type Line = { dir: 'C->S' | 'S->C'; message: Record<string, unknown> };
const wire = (name: string): Line[] =>
  (JSON.parse(readFileSync(new URL(`../../fixtures/wire/${name}.json`, import.meta.url), 'utf8')) as { wire: Line[] }).wire;
const requests = (lines: Line[]) =>
  lines.filter((l) => l.dir === 'C->S' && 'method' in l.message).map((l) => l.message as unknown as JsonRpcRequest);
const results = (lines: Line[]) =>
  lines.filter((l) => l.dir === 'S->C' && 'result' in l.message).map((l) => l.message.result as Record<string, unknown>);

describe('the 2026-07-28 codec on the captured SDK v2 wire', () => {
  it('tells the eras apart from the requests alone', () => {
    const modern = requests(wire('modern-login_form'));
    expect(modern.map(claimOf)).toEqual(['probe', 'modern', 'modern']);
    const legacy = requests(wire('legacy-login_form'));
    expect(legacy.map(claimOf)).toEqual(['legacy', null, null]);
  });

  it('reads the input-required round of a form, and every round of the multi-round chain', () => {
    const [, round1] = results(wire('modern-login_form'));
    expect(isInputRequired(round1!)).toBe(true);
    const decoded = decodeInputRequired(round1!);
    expect(decoded).toMatchObject({ ok: true, requestState: 'flow=login_form;round=1', malformed: [] });
    if (!decoded.ok) throw new Error('unreachable');
    expect(decoded.requests.map((r) => [r.key, r.method, r.params.mode])).toEqual([['login', 'elicitation/create', 'form']]);

    const chain = results(wire('modern-connect_then_confirm'));
    const rounds = chain.filter(isInputRequired).map((r) => decodeInputRequired(r));
    expect(rounds.map((r) => (r.ok ? [r.requests.map((q) => q.key), r.requestState] : r.reason))).toEqual([
      [['github'], 'flow=connect;round=1'],
      [[], 'flow=connect;round=2'],
      [['project'], 'flow=connect;round=3'],
    ]);
    expect(chain.at(-1)!.resultType).toBe('complete');
  });

  it('digests every round of one operation the same, and reads the retry parts without copying', () => {
    const calls = requests(wire('modern-connect_then_confirm')).filter((r) => r.method === 'tools/call');
    expect(calls).toHaveLength(4);
    expect(new Set(calls.map(originalDigest)).size).toBe(1);
    expect(calls.map((c) => retryPartsOf(c).requestState)).toEqual([
      undefined,
      'flow=connect;round=1',
      'flow=connect;round=2',
      'flow=connect;round=3',
    ]);
    expect(retryPartsOf(calls[1]!).inputResponses).toBe(calls[1]!.params!.inputResponses);
  });

  it('narrows the per-request capabilities without touching the rest of the request', () => {
    const [, call] = requests(wire('modern-ordinary_form'));
    expect(capabilitiesOf(call!)).toEqual({ elicitation: { form: {}, url: {} }, sampling: {} });
    const narrowed = withCapabilities(call!, { elicitation: { form: {} } });
    expect(capabilitiesOf(narrowed)).toEqual({ elicitation: { form: {} } });
    expect(narrowed.params!.arguments).toBe(call!.params!.arguments);
    expect(capabilitiesOf(call!)).toEqual({ elicitation: { form: {}, url: {} }, sampling: {} });
  });
});

describe('the 2026-07-28 codec on hostile shapes', () => {
  it('fails an input-required result closed when inputRequests is any JSON type but an object', () => {
    for (const value of [null, [], [{ method: 'elicitation/create' }], 'elicitation/create', 42, true, false]) {
      expect(decodeInputRequired({ resultType: 'input_required', inputRequests: value, requestState: 's' })).toMatchObject({ ok: false });
    }
    expect(decodeInputRequired({ resultType: 'input_required' })).toMatchObject({ ok: false });
    expect(decodeInputRequired({ resultType: 'input_required', requestState: 7 })).toMatchObject({ ok: false });
  });

  it('leaves out entries that are not one of the three embedded requests, keeps the others', () => {
    const decoded = decodeInputRequired({
      resultType: 'input_required',
      inputRequests: {
        a: { method: 'elicitation/create', params: { message: 'm', requestedSchema: { type: 'object', properties: {} } } },
        b: { method: 'tools/call' },
        c: 'x',
        d: { method: 'elicitation/create', params: [] },
        e: { method: 'roots/list' },
      },
    });
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(decoded.requests.map((r) => r.key)).toEqual(['a', 'e']);
    expect(decoded.malformed.map((m) => m.key)).toEqual(['b', 'c', 'd']);
  });

  it('never changes requestState: any string survives encode and a retry rewrite byte for byte', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.dictionary(fc.string(), fc.jsonValue()), (state, extra) => {
        const result = { ...extra, resultType: 'input_required', inputRequests: {}, requestState: state };
        const encoded = encodeInputRequired(result, new Map(), { 'mcp-elicitation-guard/x': 1 });
        expect(encoded.requestState).toBe(state);
        const retry: JsonRpcRequest = {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 't', requestState: state, inputResponses: { k: { action: 'accept' } } },
        };
        const rewritten = withInputResponses(retry, { k: { action: 'cancel' } });
        expect(rewritten.params!.requestState).toBe(state);
        expect(JSON.parse(JSON.stringify(rewritten)).params.requestState).toBe(JSON.parse(JSON.stringify(retry)).params.requestState);
      }),
    );
  });

  it('reports non-object inputResponses and non-string requestState as malformed, not absent', () => {
    const req = (params: Record<string, unknown>): JsonRpcRequest => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params });
    expect(retryPartsOf(req({ name: 't', inputResponses: [] }))).toEqual({ inputResponses: null, requestState: undefined });
    expect(retryPartsOf(req({ name: 't', requestState: {} }))).toEqual({ inputResponses: undefined, requestState: null });
    expect(retryPartsOf(req({ name: 't' }))).toEqual({ inputResponses: undefined, requestState: undefined });
  });
});
