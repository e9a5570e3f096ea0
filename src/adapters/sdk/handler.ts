/**
 * The host side of elicitation for SDK clients: asks the user through a `ConsentUi`, records the
 * decision with the guard, opens consented URLs through the guard, and answers the server.
 *
 * URL mode, in this order: the user reviews the full URL; the consent receipt is made durable
 * (`guard.recordConsent`); only then is the URL opened (`guard.openUrl`); then the server gets
 * `accept` at once (accept is consent to navigate, nothing more, and servers time out while they
 * wait). What happens in the browser is followed up afterwards, off the answer's path.
 */
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { FlowView, OpenTicket, Opener } from '../../core/flows.js';
import type { Guard } from '../../core/guard.js';
import type { ConsentDecision } from '../../flow/records.js';
import { STATE_GROUPS } from '../../flow/states.js';
import { auditForm } from '../../form/index.js';
import type { FormAudit } from '../../form/types.js';
import type { Ledger } from '../../ledger/types.js';
import { isRecord } from '../../protocol/jsonrpc.js';
import { GuardMetaKey } from '../../protocol/wire.js';
import { renderUrl } from '../../render/index.js';
import type { AfterOpenAnswer, ConsentUi, FormAnswer, UrlReviewSource } from './consent-ui.js';
import { formDefaults, formFields, type FormContent } from './form-fields.js';
import { systemBrowserOpener } from './opener.js';

export interface ElicitationHandlerOptions {
  /** Opens consented URLs. Default: `systemBrowserOpener()`. */
  readonly opener?: Opener;
  /**
   * How long the answer to the server waits for a started opener to settle before answering
   * `accept` anyway (the URL has been handed over by then). Default 5000 ms.
   */
  readonly openGraceMs?: number;
  /** How often a pending `afterOpen` question checks whether its flow stopped waiting. Default 1000 ms. */
  readonly followUpPollMs?: number;
  /** Told about failures that cannot reach the server's answer any more (a late opener error, a follow-up). */
  readonly onError?: (error: unknown) => void;
  /**
   * Accepted for compatibility and not needed: `guard.recordConsent` resolves only once the consent
   * receipt is durable in the guard's ledger and rejects when it could not be written, and nothing
   * is opened without the ticket it returns.
   */
  readonly ledger?: Ledger;
}

/**
 * What the SDKs hand an elicitation handler as its second argument: SDK v1's `extra` (`signal`), or
 * SDK v2's context (`mcpReq.signal`).
 */
export interface ElicitationHandlerExtra {
  readonly signal?: AbortSignal;
  readonly mcpReq?: { readonly signal?: AbortSignal };
}

/**
 * `(request, extra) => Promise<ElicitResult>`, for SDK v1's `client.setRequestHandler(ElicitRequestSchema, handler)`
 * and SDK v2's `client.setRequestHandler('elicitation/create', handler)`, in both protocol eras.
 */
export type ElicitationHandler = (
  request: { readonly params?: unknown } | ElicitRequest,
  extra?: ElicitationHandlerExtra,
) => Promise<ElicitResult>;

/** What presenting a `-32042` list came to: all opened (retry once done), or the user refused one. */
export type UrlRequirementOutcome = 'accepted' | 'declined' | 'cancelled';

export interface PresentOptions extends ElicitationHandlerOptions {
  /** Aborts the presentation (e.g. the host gave up on the original request). */
  readonly signal?: AbortSignal;
}

/** Manual controls over URL-mode flows, for when a completion notice never comes (spec: retry or cancel by hand). */
export interface FlowControls {
  /** Flows that are not finished, expired ones included. */
  list(): FlowView[];
  /** The user takes up a stalled flow (pending or expired) by hand; it can then be confirmed or cancelled. */
  retry(elicitationId: string): FlowView;
  /** The user gives up: the flow is cancelled and its original operation will not be retried. */
  cancel(elicitationId: string): FlowView;
  /** The user says the browser step is done. */
  confirm(elicitationId: string): FlowView;
}

const DEFAULT_GRACE_MS = 5000;
const DEFAULT_POLL_MS = 1000;

interface Context {
  readonly guard: Guard;
  readonly ui: ConsentUi;
  readonly opener: Opener;
  readonly graceMs: number;
  readonly pollMs: number;
  readonly onError: (error: unknown) => void;
}

function contextOf(guard: Guard, ui: ConsentUi, options: ElicitationHandlerOptions): Context {
  const graceMs = options.openGraceMs ?? DEFAULT_GRACE_MS;
  const pollMs = options.followUpPollMs ?? DEFAULT_POLL_MS;
  if (!(graceMs >= 0) || !Number.isFinite(graceMs)) throw new RangeError('openGraceMs must be a finite number of milliseconds >= 0');
  if (!(pollMs > 0) || !Number.isFinite(pollMs)) throw new RangeError('followUpPollMs must be a finite number of milliseconds > 0');
  const onError = options.onError;
  return {
    guard,
    ui,
    opener: options.opener ?? systemBrowserOpener(),
    graceMs,
    pollMs,
    onError: (error) => {
      try {
        onError?.(error);
      } catch {
        // A failing observer must not change the answer.
      }
    },
  };
}

/**
 * Creates the elicitation request handler of an SDK client whose transport passes a guard.
 * Answers `cancel` whenever it cannot do the safe thing: a URL request that did not pass the
 * guard, a failed consent record, a failed open, a UI error.
 * @example
 *   const guard = createGuard({ policy, server: 'github' });
 *   client.setRequestHandler(ElicitRequestSchema, createElicitationHandler(guard, createTerminalConsentUi({ input:
 *     process.stdin, output: process.stderr })));
 *   await client.connect(guardTransport(transport, guard));
 */
export function createElicitationHandler(guard: Guard, ui: ConsentUi, options: ElicitationHandlerOptions = {}): ElicitationHandler {
  const context = contextOf(guard, ui, options);
  return async (request, extra) => {
    const signal = extra?.signal ?? extra?.mcpReq?.signal ?? new AbortController().signal;
    const params: unknown = request.params;
    if (!isRecord(params)) return CANCEL;
    if (params.mode === 'url') return answerUrl(context, params, signal);
    if (params.mode === undefined || params.mode === 'form') return answerForm(context, params, signal);
    return CANCEL;
  };
}

/**
 * Presents the entries of a `-32042` error (an SDK `UrlElicitationRequiredError`, or any object
 * with `.elicitations` or `.data.elicitations`) one by one, each like a URL elicitation: review,
 * durable consent, open. Stops at the first one the user declines or cancels, and cancels the
 * flows of the entries not shown. `accepted` means every URL was opened: retry the original
 * request once the browser steps are done (a completion notice, or the user says so).
 */
export async function presentUrlElicitationRequired(
  guard: Guard,
  ui: ConsentUi,
  error: unknown,
  options: PresentOptions = {},
): Promise<UrlRequirementOutcome> {
  const context = contextOf(guard, ui, options);
  const entries = elicitationsOf(error);
  if (entries === null || entries.length === 0) return 'cancelled';
  const signal = options.signal ?? new AbortController().signal;
  for (const [i, entry] of entries.entries()) {
    const decision =
      isRecord(entry) && entry.mode === 'url' ? await consentToUrl(context, entry, 'url-elicitation-required', signal) : 'cancel';
    if (decision !== 'accept') {
      cancelUnshown(guard, entries.slice(i + 1), context.onError);
      return decision === 'decline' ? 'declined' : 'cancelled';
    }
    // consentToUrl accepts only an entry with a string elicitationId.
    followUp(context, (entry as { elicitationId: string }).elicitationId);
  }
  return 'accepted';
}

/** A thin view of the guard's manual flow controls, for a host's "pending sign-ins" screen. */
export function pendingFlowControls(guard: Guard): FlowControls {
  return {
    list: () => guard.pendingFlows(),
    retry: (elicitationId) => guard.retryFlow(elicitationId),
    cancel: (elicitationId) => guard.cancelFlow(elicitationId),
    confirm: (elicitationId) => guard.confirmFlow(elicitationId),
  };
}

const CANCEL: ElicitResult = { action: 'cancel' };

async function answerUrl(context: Context, params: Record<string, unknown>, signal: AbortSignal): Promise<ElicitResult> {
  const flow = flowOf(context.guard, params);
  const decision = await consentToUrl(context, params, 'elicitation/create', signal, flow);
  // URL mode carries no content back: accept means only that the user agreed to open the URL.
  if (decision === 'accept' && flow !== null) followUp(context, flow.elicitationId);
  return { action: decision };
}

/**
 * One URL, start to open. Fails closed: anything that did not pass the guard, or any failure
 * along the way, comes out as `cancel`, and nothing is opened without a durable accept receipt.
 */
async function consentToUrl(
  context: Context,
  item: Record<string, unknown>,
  source: UrlReviewSource,
  signal: AbortSignal,
  flow: FlowView | null = flowOf(context.guard, item),
): Promise<ConsentDecision> {
  const { guard, ui } = context;
  if (typeof item.url !== 'string') return 'cancel';
  // The guard's own record is the truth, not what arrived in `_meta`.
  if (flow === null || flow.url !== item.url || flow.state !== 'USER_REVIEW') return 'cancel';
  const elicitationId = flow.elicitationId;
  if (signal.aborted) return withdraw(context, elicitationId);
  const { analysis } = flow;
  let decision: unknown;
  try {
    decision = await ui.reviewUrl({
      server: flow.server,
      message: flow.message,
      url: flow.url,
      elicitationId,
      analysis,
      rendered: {
        plain: renderUrl(analysis.display, 'plain', analysis.findings),
        ansi: renderUrl(analysis.display, 'ansi', analysis.findings),
        html: renderUrl(analysis.display, 'html', analysis.findings),
      },
      source,
      signal,
    });
  } catch (error) {
    context.onError(error);
    return withdraw(context, elicitationId);
  }
  // A server that withdrew its request gets no navigation, whatever the user pressed last.
  const decided: ConsentDecision = signal.aborted ? 'cancel' : decision === 'accept' || decision === 'decline' ? decision : 'cancel';
  let ticket: OpenTicket | null;
  try {
    ticket = await guard.recordConsent(elicitationId, decided, {
      display: analysis.display,
      findings: analysis.findings,
      message: flow.message,
    });
  } catch (error) {
    context.onError(error);
    return 'cancel';
  }
  if (decided !== 'accept') return decided;
  // No ticket: the guard has revoked pending navigations (issuing stopped).
  if (ticket === null) return 'cancel';
  try {
    await openWithGrace(context, ticket);
  } catch (error) {
    context.onError(error);
    return 'cancel';
  }
  return 'accept';
}

/** The flow leaves review without a decision from the user (the UI failed, the server withdrew). */
function withdraw(context: Context, elicitationId: string): 'cancel' {
  try {
    context.guard.cancelFlow(elicitationId);
  } catch (error) {
    context.onError(error);
  }
  return 'cancel';
}

/**
 * Opens through the guard and waits for the opener to settle, but once the opener has started,
 * not longer than the grace period: a host opener that resolves late must not hold the server's
 * answer. An opener that fails before the grace period ends makes the answer `cancel`.
 */
async function openWithGrace(context: Context, ticket: OpenTicket): Promise<void> {
  let started!: () => void;
  const hasStarted = new Promise<void>((resolve) => (started = resolve));
  const opening = context.guard.openUrl(ticket, (url) => {
    const result = context.opener(url);
    started();
    return result;
  });
  let timer: NodeJS.Timeout | undefined;
  const grace = hasStarted.then(() => new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), context.graceMs))));
  try {
    const outcome = await Promise.race([opening.then(() => 'done' as const), grace]);
    if (outcome === 'late') opening.catch(context.onError);
  } finally {
    clearTimeout(timer);
  }
}

const { confirmable: CONFIRMABLE, cancellableAfterOpen: CANCELLABLE, waiting: WAITING } = STATE_GROUPS;

/**
 * Asks `ui.afterOpen` about an opened flow, after the answer has gone out (never on its path).
 * The question is withdrawn when the flow stops waiting on its own.
 */
function followUp(context: Context, elicitationId: string): void {
  const afterOpen = context.ui.afterOpen;
  if (afterOpen === undefined) return;
  setImmediate(() => {
    const { guard } = context;
    const flow = guard.flow(elicitationId);
    if (flow === null || !WAITING.has(flow.state)) return;
    const controller = new AbortController();
    const poll = setInterval(() => {
      const state = guard.flow(elicitationId)?.state;
      if (state === undefined || !WAITING.has(state)) controller.abort();
    }, context.pollMs);
    poll.unref();
    let answer: Promise<AfterOpenAnswer>;
    try {
      answer = Promise.resolve(afterOpen.call(context.ui, flow, controller.signal));
    } catch (error) {
      answer = Promise.reject(error);
    }
    answer
      .then((choice) => settleFollowUp(guard, elicitationId, choice))
      .catch(context.onError)
      .finally(() => clearInterval(poll));
  });
}

function settleFollowUp(guard: Guard, elicitationId: string, choice: AfterOpenAnswer): void {
  // The flow may have moved on while the user was away (a completion notice, the final answer).
  const state = guard.flow(elicitationId)?.state;
  if (state === undefined) return;
  switch (choice) {
    case 'finished':
      if (CONFIRMABLE.has(state)) guard.confirmFlow(elicitationId);
      return;
    case 'cancel':
      if (CANCELLABLE.has(state)) guard.cancelFlow(elicitationId);
      return;
    case 'waiting':
      return;
    default: {
      const unreachable: never = choice;
      throw new TypeError(`afterOpen answered ${JSON.stringify(unreachable)}; expected finished, waiting or cancel`);
    }
  }
}

async function answerForm(context: Context, params: Record<string, unknown>, signal: AbortSignal): Promise<ElicitResult> {
  const { guard, ui } = context;
  const requestedSchema = params.requestedSchema;
  if (!isRecord(requestedSchema) || typeof params.message !== 'string') return CANCEL;
  // The guard puts its audit in `_meta` (replacing anything the server put there). A form that
  // reached the handler without passing a guard is audited here: it never reaches the user unaudited.
  const meta = isRecord(params._meta) ? params._meta : null;
  const fromGuard = meta === null ? undefined : meta[GuardMetaKey.formAudit];
  const audit: FormAudit = isFormAudit(fromGuard) ? fromGuard : auditForm(params, guard.policy);
  if (audit.verdict === 'block' || signal.aborted) return CANCEL;
  const fields = formFields(requestedSchema, audit);
  let answer: FormAnswer;
  try {
    answer = await ui.reviewForm({
      server: guard.session().server,
      message: params.message,
      requestedSchema,
      audit,
      fields,
      defaults: formDefaults(fields),
      signal,
    });
  } catch (error) {
    context.onError(error);
    return CANCEL;
  }
  if (signal.aborted || !isRecord(answer)) return CANCEL;
  switch (answer.action) {
    // The guard checks the content on its way out (schema, secrets) and answers cancel if it fails.
    case 'accept':
      return isRecord(answer.content) ? { action: 'accept', content: answer.content as FormContent } : CANCEL;
    case 'decline':
      return { action: 'decline' };
    case 'cancel':
      return CANCEL;
    default:
      return CANCEL;
  }
}

/**
 * The guard's flow for a URL elicitation, or `null` when the request did not pass the guard.
 * - 2025-11-25: by its `elicitationId`, with the guard's analysis in `_meta` (a request without it
 *   did not pass a guard);
 * - 2026-07-28 has no `elicitationId`: by the flow id the guard put in `_meta`; and since SDK v2
 *   hands the handler an embedded request's params without their `_meta`, by the guard's own
 *   record of it: a flow of an input-required round, still in review, with this very URL and
 *   message (the oldest, when the server asked twice).
 */
function flowOf(guard: Guard, item: Record<string, unknown>): FlowView | null {
  const meta = isRecord(item._meta) ? item._meta : null;
  const judged = meta !== null && isRecord(meta[GuardMetaKey.urlAnalysis]);
  if (typeof item.elicitationId === 'string') return judged ? guard.flow(item.elicitationId) : null;
  const flowId = meta === null ? undefined : meta[GuardMetaKey.flow];
  if (typeof flowId === 'string') return judged ? guard.flow(flowId) : null;
  if (meta !== null && judged) return null;
  for (const flow of guard.pendingFlows()) {
    if (flow.lineage === 'input-required' && flow.state === 'USER_REVIEW' && flow.url === item.url && flow.message === item.message)
      return flow;
  }
  return null;
}

function isFormAudit(value: unknown): value is FormAudit {
  return (
    isRecord(value) &&
    (value.verdict === 'allow' || value.verdict === 'warn' || value.verdict === 'block') &&
    Array.isArray(value.fields) &&
    Array.isArray(value.findings)
  );
}

function elicitationsOf(error: unknown): unknown[] | null {
  if (!isRecord(error) && !(error instanceof Error)) return null;
  const holder = error as { elicitations?: unknown; data?: unknown };
  if (Array.isArray(holder.elicitations)) return holder.elicitations;
  const data = holder.data;
  return isRecord(data) && Array.isArray(data.elicitations) ? data.elicitations : null;
}

function cancelUnshown(guard: Guard, rest: readonly unknown[], onError: (error: unknown) => void): void {
  for (const entry of rest) {
    if (!isRecord(entry) || typeof entry.elicitationId !== 'string') continue;
    if (guard.flow(entry.elicitationId)?.state !== 'USER_REVIEW') continue;
    try {
      guard.cancelFlow(entry.elicitationId);
    } catch (error) {
      onError(error);
    }
  }
}
