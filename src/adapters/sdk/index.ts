export { guardTransport } from './transport.js';
export {
  createElicitationHandler,
  pendingFlowControls,
  presentUrlElicitationRequired,
  type ElicitationHandler,
  type ElicitationHandlerOptions,
  type FlowControls,
  type PresentOptions,
  type UrlRequirementOutcome,
} from './handler.js';
export type {
  AfterOpenAnswer,
  ConsentUi,
  FormAnswer,
  FormReview,
  RenderedUrl,
  UrlDecision,
  UrlReview,
  UrlReviewSource,
} from './consent-ui.js';
export {
  fieldProblem,
  formDefaults,
  formFields,
  parseFieldInput,
  type FormContent,
  type FormField,
  type FormOption,
  type FormValue,
  type ParsedInput,
} from './form-fields.js';
export { assertOpenableUrl, functionOpener, systemBrowserOpener, type Launch, type Opener, type SystemBrowserOptions } from './opener.js';
export { createTerminalConsentUi, type TerminalConsentUi, type TerminalConsentUiOptions } from './terminal-ui.js';
