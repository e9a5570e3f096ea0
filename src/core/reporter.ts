/**
 * The guard's events: built with the guard's clock, the server's identity and the session
 * generation; gathered into the Decision of the message being judged, or handed to `onEvent` at
 * once outside a judgement (a ledger failure, a manual control). A failing observer never changes
 * what the guard does.
 */
import type { FlowNote } from '../flow/book.js';
import { GuardError } from '../protocol/errors.js';
import type { Decision } from './decision.js';
import type { GuardEvent, ServerIdentity } from './events.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An event as the guard writes it: without the fields the reporter fills in. */
export type EventFields = DistributiveOmit<GuardEvent, 'at' | 'server' | 'generation'>;

export class Reporter {
  readonly #clock: () => number;
  readonly #onEvent: ((event: GuardEvent) => void) | undefined;
  readonly #server: () => ServerIdentity;
  readonly #generation: () => number;
  /** True while a message is judged: events then go into its decision. */
  #judging = false;
  /** Events produced while judging one message (allocated only when there is one). */
  #buffer: GuardEvent[] | null = null;

  constructor(
    clock: () => number,
    onEvent: ((event: GuardEvent) => void) | undefined,
    server: () => ServerIdentity,
    generation: () => number,
  ) {
    this.#clock = clock;
    this.#onEvent = onEvent;
    this.#server = server;
    this.#generation = generation;
  }

  event(fields: EventFields): GuardEvent {
    return { at: this.#clock(), server: this.#server(), generation: this.#generation(), ...fields } as GuardEvent;
  }

  /** Delivers an event: into the decision being made, or straight to `onEvent` outside a judgement. */
  emit(event: GuardEvent): void {
    if (this.#judging) (this.#buffer ??= []).push(event);
    else this.#observe(event);
  }

  /** A judgement starts: events emitted until `close` belong to its decision. */
  open(): void {
    this.#judging = true;
  }

  /** The judgement is done: events emitted meanwhile go in front of the decision's own, then all to `onEvent`. */
  close(decision: Decision): Decision {
    const notes = this.#buffer;
    this.#judging = false;
    this.#buffer = null;
    const judged = notes === null ? decision : { ...decision, events: [...notes, ...decision.events] };
    if (judged.events.length > 0 && this.#onEvent !== undefined) for (const event of judged.events) this.#observe(event);
    if (judged.action === 'defer' && this.#onEvent !== undefined) return { ...judged, until: judged.until.then(this.#settled) };
    return judged;
  }

  /** A deferred decision settled (its durable write is done): the events of what it became reach `onEvent` too. */
  readonly #settled = (next: Decision): Decision => {
    for (const event of next.events) this.#observe(event);
    return next.action === 'defer' ? { ...next, until: next.until.then(this.#settled) } : next;
  };

  /** Runs a manual control; a refused move is recorded as an event before it is thrown to the host. */
  recorded<T>(control: () => T): T {
    try {
      return control();
    } catch (error) {
      if (GuardError.is(error)) this.emit(this.event({ type: 'guard.error', code: error.code, message: error.message }));
      throw error;
    }
  }

  /** What the flow book says happened, as an event. */
  note(note: FlowNote): void {
    if ('navigationId' in note) {
      this.emit(
        this.event({ type: 'flow.transition', navigation: note.navigationId, from: note.from, to: note.to, trigger: note.trigger }),
      );
      return;
    }
    const r = note.receipt;
    if (r.schema === 'consentReceipt.v1') {
      this.emit(
        this.event({
          type: 'receipt.consent',
          receipt: r.id,
          navigation: r.navigationId,
          decision: r.decision,
          shownDigest: r.shownDigest,
        }),
      );
      return;
    }
    const fields = {
      receipt: r.id,
      lineage: r.lineage.kind,
      requestId: r.requestId,
      retryGeneration: r.retryGeneration,
      responseDigest: r.responseDigest,
    };
    this.emit(this.event({ type: 'receipt.business', ...fields }));
  }

  #observe(event: GuardEvent): void {
    try {
      this.#onEvent?.(event);
    } catch {
      // A failing observer must never change what the guard does.
    }
  }
}
