import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { requestDigest } from '../../src/protocol/digest.js';
import { GuardError } from '../../src/protocol/errors.js';
import { idKey, kindOf } from '../../src/protocol/jsonrpc.js';

describe('requestDigest', () => {
  it('is the same for the same request whatever the key order and _meta', () => {
    const a = requestDigest('tools/call', { name: 'pay', arguments: { amount: 5, currency: 'EUR' } });
    const b = requestDigest('tools/call', { arguments: { currency: 'EUR', amount: 5 }, name: 'pay', _meta: { progressToken: 7 } });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs when the method or arguments differ', () => {
    const base = requestDigest('tools/call', { name: 'pay', arguments: { amount: 5 } });
    expect(requestDigest('tools/call', { name: 'pay', arguments: { amount: 6 } })).not.toBe(base);
    expect(requestDigest('resources/read', { name: 'pay', arguments: { amount: 5 } })).not.toBe(base);
  });

  it('is sha256 over the RFC 8785 canonical JSON of {method, params}', () => {
    const canonical = '{"method":"m","params":{"a":1,"b":[true,null]}}';
    expect(requestDigest('m', { b: [true, null], a: 1 })).toBe(createHash('sha256').update(canonical).digest('hex'));
    expect(requestDigest('m', { b: [true, null], a: 1 })).toBe('8915bd7e26d23eb81ef639742fa1162dd37a3cc895ae768a8be0a566cfee3158');
  });
});

describe('jsonrpc helpers', () => {
  it('classifies messages by their keys', () => {
    expect(kindOf({ jsonrpc: '2.0', id: 1, method: 'x' })).toBe('request');
    expect(kindOf({ jsonrpc: '2.0', method: 'x' })).toBe('notification');
    expect(kindOf({ jsonrpc: '2.0', id: 1, result: {} })).toBe('result');
    expect(kindOf({ jsonrpc: '2.0', id: null, error: { code: 1, message: 'x' } })).toBe('error');
    expect(kindOf({ jsonrpc: '2.0', id: {}, method: 'x' })).toBe('invalid');
    expect(kindOf('x')).toBe('invalid');
    expect(kindOf([1])).toBe('invalid');
  });

  it('keeps numeric and string ids apart', () => {
    expect(idKey(1)).not.toBe(idKey('1'));
  });

  it('brands GuardError', () => {
    const error = new GuardError('E_X', 'x');
    expect(GuardError.is(error)).toBe(true);
    expect(GuardError.is(new Error('x'))).toBe(false);
  });
});
