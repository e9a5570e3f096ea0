/**
 * The per-session registry of URL-mode elicitation ids (from `elicitation/create` and from
 * `-32042` data). A completion notice is delivered to the host once, for a known pending id of
 * the current session generation; everything else is dropped. Bounded in size (oldest forgotten
 * first) and in time (each id has a time to live), so a flood of ids costs a fixed amount of memory
 * and a flood of unknown ids costs nothing.
 *
 * A completion notice is a hint: delivering it is never consent and never proof that the
 * external step succeeded.
 */

export type CompletionSource = 'elicitation/create' | 'url-elicitation-required';

export type DropReason = 'unknown' | 'duplicate' | 'expired' | 'stale' | 'finished';

export type NoticeOutcome = { readonly deliver: true } | { readonly deliver: false; readonly reason: DropReason };

interface Entry {
  state: 'pending' | 'completed' | 'finished';
  readonly generation: number;
  readonly expiresAt: number;
  readonly source: CompletionSource;
}

export interface CompletionRegistryOptions {
  readonly maxEntries: number;
  readonly ttlMs: number;
  readonly clock: () => number;
}

const DELIVER: NoticeOutcome = Object.freeze({ deliver: true });

export class CompletionRegistry {
  readonly #entries = new Map<string, Entry>();
  readonly #options: CompletionRegistryOptions;

  constructor(options: CompletionRegistryOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Remembers an id as pending. Re-registering a known id of the same generation keeps its first
   * entry; an id of an older generation is replaced (a server that restarted may reuse its ids).
   */
  register(elicitationId: string, generation: number, source: CompletionSource): void {
    const known = this.#entries.get(elicitationId);
    if (known !== undefined && known.generation === generation) return;
    this.#entries.delete(elicitationId);
    this.#entries.set(elicitationId, { state: 'pending', generation, expiresAt: this.#options.clock() + this.#options.ttlMs, source });
    while (this.#entries.size > this.#options.maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  /** The user declined or cancelled: no completion for this id will be delivered. */
  finish(elicitationId: string): void {
    const entry = this.#entries.get(elicitationId);
    if (entry !== undefined && entry.state === 'pending') entry.state = 'finished';
  }

  isPending(elicitationId: string, generation: number): boolean {
    const entry = this.#entries.get(elicitationId);
    return entry !== undefined && entry.state === 'pending' && entry.generation === generation && entry.expiresAt > this.#options.clock();
  }

  /** Decides what to do with `notifications/elicitation/complete` for `elicitationId`. */
  onNotice(elicitationId: string, generation: number): NoticeOutcome {
    const entry = this.#entries.get(elicitationId);
    if (entry === undefined) return { deliver: false, reason: 'unknown' };
    if (entry.generation !== generation) return { deliver: false, reason: 'stale' };
    switch (entry.state) {
      case 'completed':
        return { deliver: false, reason: 'duplicate' };
      case 'finished':
        return { deliver: false, reason: 'finished' };
      case 'pending':
        if (entry.expiresAt <= this.#options.clock()) return { deliver: false, reason: 'expired' };
        entry.state = 'completed';
        return DELIVER;
    }
  }
}
