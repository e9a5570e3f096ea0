import { describe, expect, it } from 'vitest';
import { createNavigation } from '../../src/flow/records.js';
import { moveByHand } from '../../src/ledger/manual.js';
import { MemoryLedger } from '../../src/ledger/memory.js';
import type { Ledger } from '../../src/ledger/types.js';
import { navigationInput, testDeps } from '../flow/support.js';

async function pendingFlow() {
  const deps = testDeps(11);
  const ledger = new MemoryLedger();
  const { record } = createNavigation(navigationInput(), deps);
  await ledger.putNavigation(record);
  await ledger.updateFlowState(record.id, 'CREATED', 'USER_REVIEW', 'presented', 1);
  await ledger.updateFlowState(record.id, 'USER_REVIEW', 'NAVIGATION_ACCEPTED', 'user-accepted', 2);
  await ledger.updateFlowState(record.id, 'NAVIGATION_ACCEPTED', 'OUT_OF_BAND_PENDING', 'navigation-opened', 3);
  return { ledger, id: record.id };
}

describe('moveByHand', () => {
  it('applies each control through compare-and-set steps and reports them', async () => {
    const { ledger, id } = await pendingFlow();
    expect(await moveByHand(ledger, id, 'recover', 10)).toEqual({
      id,
      state: 'USER_RETRY',
      steps: [{ from: 'OUT_OF_BAND_PENDING', to: 'USER_RETRY', trigger: 'manual-recovery' }],
    });
    expect(await moveByHand(ledger, id, 'confirm', 11)).toMatchObject({ state: 'REQUIREMENT_VERIFIED' });
    await expect(moveByHand(ledger, id, 'cancel', 12)).rejects.toMatchObject({
      code: 'E_ILLEGAL_TRANSITION',
      details: { id, from: 'REQUIREMENT_VERIFIED' },
    });
    await expect(moveByHand(ledger, 'nav_nope', 'cancel', 12)).rejects.toMatchObject({ code: 'E_UNKNOWN_NAVIGATION' });
    expect((await ledger.listTransitions(id)).map((t) => t.at).slice(-2)).toEqual([10, 11]);
  });

  it('stops with E_STATE_CONFLICT when another writer moved the flow between the read and the write', async () => {
    const { ledger, id } = await pendingFlow();
    const stale = await ledger.getNavigation(id);
    // Someone else confirms it first; this control still holds the old read.
    await ledger.updateFlowState(id, 'OUT_OF_BAND_PENDING', 'REQUIREMENT_VERIFIED', 'user-confirmed', 5);
    const racing: Ledger = {
      getNavigation: async () => stale,
      updateFlowState: (...args) => ledger.updateFlowState(...args),
    } as Pick<Ledger, 'getNavigation' | 'updateFlowState'> as Ledger;
    await expect(moveByHand(racing, id, 'cancel', 6)).rejects.toMatchObject({
      code: 'E_STATE_CONFLICT',
      message: expect.stringContaining('expected OUT_OF_BAND_PENDING, found REQUIREMENT_VERIFIED'),
    });
    expect((await ledger.getNavigation(id))!.flow.state).toBe('REQUIREMENT_VERIFIED');
  });
});
