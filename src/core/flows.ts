/** What a host sees of the flow book: its views typed with the URL checker's analysis. */
import type { BookFlowView } from '../flow/book.js';
import type { UrlAnalysis } from '../url/types.js';

/** What a host sees of a URL-mode flow. The URL is held in memory only, never written to the ledger. */
export type FlowView = BookFlowView<UrlAnalysis>;
export type { OpenTicket, Opener } from '../flow/book.js';
