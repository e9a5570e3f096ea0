/**
 * The page's controls. A flow held by the live guard of this process (`proxy --ui`) is moved
 * through the guard's manual controls, so its book, its lineage and the ledger stay in step; any
 * other flow (an earlier session, another process, `ledger serve`) through the same ledger moves
 * as `ledger recover|confirm|cancel`. Either way a move the state does not allow is refused with
 * the guard's error code and changes nothing.
 */
import type { Guard } from '../core/guard.js';
import { moveByHand, type ManualAction } from '../ledger/manual.js';
import type { Ledger } from '../ledger/types.js';
import { GuardCode, GuardError } from '../protocol/errors.js';
import type { FlowState } from '../flow/states.js';

export type UiAction = 'retry' | 'confirm' | 'cancel';
export const UI_ACTIONS: readonly UiAction[] = ['retry', 'confirm', 'cancel'];

export type ActionResult =
  | { readonly ok: true; readonly from: FlowState; readonly state: FlowState; readonly via: 'guard' | 'ledger' }
  | { readonly ok: false; readonly code: string; readonly message: string };

const TO_MANUAL: Readonly<Record<UiAction, ManualAction>> = { retry: 'recover', confirm: 'confirm', cancel: 'cancel' };

export async function runAction(ledger: Ledger, guard: Guard | null, id: string, action: UiAction, now: number): Promise<ActionResult> {
  try {
    const stored = await ledger.getNavigation(id);
    if (stored === null) throw new GuardError(GuardCode.unknownNavigation, `no navigation record "${id}" in the ledger`, { id });
    const live = guard?.flow(stored.record.elicitationId) ?? null;
    if (guard !== null && live !== null && live.navigationId === id) {
      const from = live.state;
      const view =
        action === 'retry'
          ? guard.retryFlow(live.elicitationId)
          : action === 'confirm'
            ? guard.confirmFlow(live.elicitationId)
            : guard.cancelFlow(live.elicitationId);
      // The page shows what the ledger says: wait until the guard's writes are in.
      await guard.flush();
      return { ok: true, from, state: view.state, via: 'guard' };
    }
    const moved = await moveByHand(ledger, id, TO_MANUAL[action], now);
    return { ok: true, from: stored.flow.state, state: moved.state, via: 'ledger' };
  } catch (error) {
    if (GuardError.is(error)) return { ok: false, code: error.code, message: error.message };
    throw error;
  }
}
