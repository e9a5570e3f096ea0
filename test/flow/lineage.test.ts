import { describe, expect, it } from 'vitest';
import { acceptOriginalOperation, createLineage, ruleOnRetry } from '../../src/flow/lineage.js';

const deps = { clock: () => 1_000, random: (n: number) => new Uint8Array(n).fill(7) };
const scope = { sessionId: 's1', generation: 1 };
const digest = 'a'.repeat(64);

describe('ruleOnRetry', () => {
  it('refuses a repeat of a nested original while it is in flight and allows it afterwards', () => {
    const lineage = createLineage('nested', scope, 5, digest, 10_000);
    expect(ruleOnRetry(lineage, 1, true)).toMatchObject({ allow: false, code: 'E_RETRY_WHILE_IN_FLIGHT' });
    expect(ruleOnRetry(lineage, 1, false)).toEqual({ allow: true, generation: 0 });
  });

  it('lets maxRetries retries of an error lineage through, then refuses', () => {
    const lineage = createLineage('error-retry', scope, 6, digest, 10_000);
    expect(ruleOnRetry(lineage, 2, false)).toEqual({ allow: true, generation: 1 });
    lineage.retriesUsed = 1;
    lineage.retryIds.set(7, 1);
    expect(ruleOnRetry(lineage, 2, false)).toMatchObject({ allow: false, code: 'E_RETRY_WHILE_IN_FLIGHT' });
    lineage.retryIds.clear();
    expect(ruleOnRetry(lineage, 2, false)).toEqual({ allow: true, generation: 2 });
    lineage.retriesUsed = 2;
    expect(ruleOnRetry(lineage, 2, false)).toMatchObject({ allow: false, code: 'E_RETRY_EXHAUSTED' });
  });

  it('waits for a requirement the host is known to be working on, and trusts the host when it is not seen', () => {
    const lineage = createLineage('error-retry', scope, 6, digest, 10_000);
    expect(ruleOnRetry(lineage, 1, false, 'pending')).toMatchObject({ allow: false, code: 'E_RETRY_NOT_ELIGIBLE' });
    expect(ruleOnRetry(lineage, 1, false, 'verified')).toEqual({ allow: true, generation: 1 });
    expect(ruleOnRetry(lineage, 1, false, 'unseen')).toEqual({ allow: true, generation: 1 });
  });

  it('never allows a retry after a decline or cancel', () => {
    const lineage = createLineage('error-retry', scope, 6, digest, 10_000);
    lineage.refused = true;
    expect(ruleOnRetry(lineage, 5, false)).toMatchObject({ allow: false, code: 'E_RETRY_NOT_ELIGIBLE' });
  });
});

describe('acceptOriginalOperation', () => {
  it('accepts one final answer per lineage and refuses the second with E_ALREADY_ACCEPTED', () => {
    const lineage = createLineage('error-retry', scope, 6, digest, 10_000);
    lineage.consentReceiptIds.push('cr_1');
    const first = acceptOriginalOperation(lineage, { jsonrpc: '2.0', id: 8, result: { ok: true } }, 1, deps);
    expect(first).toMatchObject({
      accepted: true,
      receipt: {
        lineage: { kind: 'error-retry', originalRequestDigest: digest },
        requestId: 8,
        retryGeneration: 1,
        requirementReceiptIds: ['cr_1'],
      },
    });
    expect(acceptOriginalOperation(lineage, { jsonrpc: '2.0', id: 9, result: { ok: true } }, 1, deps)).toMatchObject({
      accepted: false,
      code: 'E_ALREADY_ACCEPTED',
    });
  });

  it('scopes lineage keys to the session, generation and original, so a deliberate repeat is a new operation', () => {
    const a = createLineage('nested', scope, 1, digest, 10_000);
    const b = createLineage('nested', scope, 2, digest, 10_000);
    const c = createLineage('nested', { sessionId: 's1', generation: 2 }, 1, digest, 10_000);
    expect(new Set([a.key.session, b.key.session, c.key.session]).size).toBe(3);
    expect(createLineage('nested', scope, 1, digest, 1).key.session).not.toBe(createLineage('nested', scope, '1', digest, 1).key.session);
  });
});
