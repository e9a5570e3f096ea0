/**
 * The rollback switch across processes. A host runs one proxy per server, each with its own guard;
 * rolling back must reach all of them, also from `ledger serve`, which has no guard. So the switch
 * is a small file beside the ledger (`rollback.json`): the page writes it, every proxy whose ledger
 * is in that directory reads it at start and checks it every second, and applies it to its guard.
 * A page beside a proxy (`proxy --ui`) also applies it to that proxy's guard at once.
 */
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Guard } from '../core/guard.js';
import { GuardCode, GuardError } from '../protocol/errors.js';

export const ROLLBACK_FILE = 'rollback.json';

export interface RollbackState {
  readonly issuing: 'open' | 'stopped';
  /** When outstanding nonces were last revoked (ms since the epoch); `null` for never. */
  readonly revokedAt: number | null;
  readonly updatedAt: number | null;
}

const OPEN: RollbackState = Object.freeze({ issuing: 'open', revokedAt: null, updatedAt: null });

const stateSchema = z.strictObject({
  issuing: z.enum(['open', 'stopped']),
  revokedAt: z.number().int().min(0).nullable(),
  updatedAt: z.number().int().min(0).nullable(),
});

/** What the page's Rollback controls act on. */
export interface RollbackControl {
  /** Says, for the page, what the switch reaches. */
  readonly scope: string;
  read(): RollbackState;
  setIssuing(issuing: 'open' | 'stopped'): RollbackState;
  /** Revokes outstanding nonces; `revokedHere` is how many a guard in this process held (`null` without one). */
  revoke(): { readonly state: RollbackState; readonly revokedHere: number | null };
}

/** The switch file in `dir`. A missing file means "open, never revoked". */
export class RollbackFile {
  readonly path: string;
  readonly #clock: () => number;

  constructor(dir: string, clock: () => number = Date.now) {
    this.path = join(dir, ROLLBACK_FILE);
    this.#clock = clock;
  }

  /** The stored state; throws `E_INPUT` naming the file when it is not a rollback file. */
  read(): RollbackState {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return OPEN;
      throw new GuardError(GuardCode.input, `cannot read the rollback switch ${this.path}: ${(error as Error).message}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new GuardError(GuardCode.input, `the rollback switch ${this.path} is not JSON`);
    }
    const result = stateSchema.safeParse(parsed);
    if (!result.success)
      throw new GuardError(
        GuardCode.input,
        `the rollback switch ${this.path} is not a rollback file (expected issuing, revokedAt, updatedAt)`,
      );
    return Object.freeze(result.data);
  }

  /** Writes atomically (a temporary file renamed over it), readable by its user only. */
  write(change: { issuing?: 'open' | 'stopped'; revoke?: boolean }): RollbackState {
    const current = this.read();
    const now = this.#clock();
    const next: RollbackState = Object.freeze({
      issuing: change.issuing ?? current.issuing,
      // Strictly increasing, so a watcher tells two revocations in one millisecond apart.
      revokedAt: change.revoke === true ? Math.max(now, (current.revokedAt ?? -1) + 1) : current.revokedAt,
      updatedAt: now,
    });
    const temp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(next, null, 2) + '\n', { mode: 0o600 });
    renameSync(temp, this.path);
    return next;
  }
}

/** The switch of one live guard only (a host's own page without a shared ledger directory). */
export function guardRollback(guard: Guard): RollbackControl {
  let revokedAt: number | null = null;
  const state = (): RollbackState => ({ issuing: guard.issuing(), revokedAt, updatedAt: null });
  return {
    scope: 'the guard running in this process',
    read: state,
    setIssuing(issuing) {
      guard.setIssuing(issuing);
      return state();
    },
    revoke() {
      const revokedHere = guard.revokeNonces();
      revokedAt = Date.now();
      return { state: state(), revokedHere };
    },
  };
}

/** The shared switch file, and the guard of this process (if any) at once. */
export function fileRollback(file: RollbackFile, guard: Guard | null): RollbackControl {
  return {
    scope: `every proxy whose ledger is beside ${file.path} (each checks it every second)${guard === null ? '' : ', this one at once'}`,
    read: () => {
      const stored = file.read();
      // This process's guard may have been switched by its host directly: show what it does.
      return guard === null ? stored : { ...stored, issuing: guard.issuing() };
    },
    setIssuing(issuing) {
      const state = file.write({ issuing });
      guard?.setIssuing(issuing);
      return guard === null ? state : { ...state, issuing: guard.issuing() };
    },
    revoke() {
      const state = file.write({ revoke: true });
      return { state, revokedHere: guard === null ? null : guard.revokeNonces() };
    },
  };
}

/**
 * Applies the switch file to `guard`: `stopped` at start, and every change after (the file's
 * identity, size and time are checked every `intervalMs`, and it is read when they moved): every
 * rewrite that says `stopped` stops the guard; `open` opens it when the file moved from `stopped`.
 * A file that cannot be read is reported once, changes nothing, and is read again at the next check.
 * Returns the function that stops following.
 */
export function followRollback(file: RollbackFile, guard: Guard, log: (line: string) => void, intervalMs = 1000): () => void {
  let seen: RollbackState = OPEN;
  let seenKey: string | null = null;
  let complained = false;
  const keyOf = (): string => {
    try {
      const st = statSync(file.path);
      return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
    } catch {
      return 'absent';
    }
  };
  const apply = (initial: boolean) => {
    const key = keyOf();
    if (key === seenKey) return;
    let state: RollbackState;
    try {
      state = file.read();
    } catch (error) {
      if (!complained) log(`mcp-elicitation-guard: ${(error as Error).message}; the rollback switch is left as it was`);
      complained = true;
      return;
    }
    complained = false;
    seenKey = key;
    if (initial) {
      // A guard starting after a rollback starts stopped; "open" leaves the policy's own setting.
      if (state.issuing === 'stopped' && guard.issuing() !== 'stopped') guard.setIssuing('stopped');
    } else {
      // A rewritten file that says "stopped" always stops the guard: the follower may have missed an
      // "open" in between (the page beside this proxy opens the file and its guard at once), and a
      // rollback must reach every guard. "open" is applied when the file moved to it, so a revocation
      // that carries "open" along does not undo a guard stopped some other way.
      const moved = state.issuing === 'stopped' || state.issuing !== seen.issuing;
      if (moved && guard.issuing() !== state.issuing) guard.setIssuing(state.issuing);
      if (state.revokedAt !== null && state.revokedAt !== seen.revokedAt) guard.revokeNonces();
    }
    seen = state;
  };
  apply(true);
  // Our own clock rather than fs.watchFile: its first look at the file is asynchronous, and a change
  // made before it would be missed for good.
  const timer = setInterval(() => apply(false), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
