/**
 * What a host draws for an elicitation: the contract between `createElicitationHandler` and the
 * host's UI. The handler does the protocol and the guard's bookkeeping; the UI only asks the user.
 */
import type { ServerIdentity } from '../../core/events.js';
import type { FlowView } from '../../core/flows.js';
import type { ConsentDecision } from '../../flow/records.js';
import type { FormAudit } from '../../form/types.js';
import type { UrlAnalysis } from '../../url/types.js';
import type { FormContent, FormField } from './form-fields.js';

/** The URL rendered for each kind of surface, domain highlighted, findings listed, all text escaped. */
export interface RenderedUrl {
  readonly plain: string;
  readonly ansi: string;
  readonly html: string;
}

/** Where a URL elicitation came from: a request from the server, or an entry of a `-32042` error. */
export type UrlReviewSource = 'elicitation/create' | 'url-elicitation-required';

/**
 * A URL the server wants the user to open. Nothing has been fetched: the UI must show `url` in full
 * (`rendered` does), say which `server` asks, and must not load the URL or any of its metadata.
 */
export interface UrlReview {
  /** Which server asks (the host's key for it, and its `serverInfo`). */
  readonly server: ServerIdentity;
  /** The server's explanation. Untrusted text: escape it before showing it. */
  readonly message: string;
  /** The URL exactly as the server sent it. Untrusted: show `rendered`, not this, to a user. */
  readonly url: string;
  readonly elicitationId: string;
  /** The guard's analysis: verdict, findings, display model (highlighted domain, Punycode). */
  readonly analysis: UrlAnalysis;
  readonly rendered: RenderedUrl;
  readonly source: UrlReviewSource;
  /** Aborted when the server withdraws the request (or the host gives up): stop asking, answer `cancel`. */
  readonly signal: AbortSignal;
}

/** What the user decided about a URL: open it (`accept`), refuse (`decline`), or dismiss (`cancel`). */
export type UrlDecision = ConsentDecision;

/** A form the server wants the user to fill in. The guard has audited it; sensitive forms never get here. */
export interface FormReview {
  readonly server: ServerIdentity;
  /** The server's explanation. Untrusted text: escape it before showing it. */
  readonly message: string;
  /** The schema as the server sent it (already checked against the spec's form subset). */
  readonly requestedSchema: Readonly<Record<string, unknown>>;
  /** The guard's audit: per-field classes and warnings (e.g. personal data) to show next to the form. */
  readonly audit: FormAudit;
  /** The fields to draw, in the schema's order, with options, limits and defaults. */
  readonly fields: readonly FormField[];
  /** The schema's defaults, to pre-fill (spec: clients SHOULD pre-populate them). */
  readonly defaults: FormContent;
  /** Aborted when the server withdraws the request: stop asking, answer `cancel`. */
  readonly signal: AbortSignal;
}

/** The user's answer to a form: send reviewed content, refuse, or dismiss. */
export type FormAnswer =
  | { readonly action: 'accept'; readonly content: FormContent }
  | { readonly action: 'decline' }
  | { readonly action: 'cancel' };

/**
 * After the browser was opened: the user has finished there (`finished`, the spec's manual
 * control), will come back later (`waiting`, the flow stays pending), or gives up (`cancel`).
 */
export type AfterOpenAnswer = 'finished' | 'waiting' | 'cancel';

/** The host's UI for elicitations. */
export interface ConsentUi {
  /** Show a URL elicitation and ask for explicit consent to open it. */
  reviewUrl(request: UrlReview): Promise<UrlDecision>;
  /** Show a form pre-filled with its defaults; let the user review and modify the answers before sending. */
  reviewForm(request: FormReview): Promise<FormAnswer>;
  /**
   * Asked after the URL was opened, once the server already has its answer. `signal` is aborted
   * when the flow stops waiting on its own (a completion notice, the server's final answer, a
   * cancel elsewhere); the UI should then stop asking and resolve `waiting`.
   */
  afterOpen?(flow: FlowView, signal: AbortSignal): Promise<AfterOpenAnswer>;
}
