export { auditForm, PERSONAL_FIELD, URL_IN_FORM } from './audit.js';
export { checkContent, compileContentCheck, type CompiledContentCheck } from './content.js';
export { applyFormExceptions, schemaDigest } from './exceptions.js';
export { classifyField } from './classify-field.js';
export { DEFAULT_WARNING, PATTERN_INFO } from './schema.js';
export { LEXICON, type Lang, type Concept, type LexiconEntry, type MatchRule } from './lexicon.js';
export type { ContentCheck, FieldClass, FieldReport, FormAudit } from './types.js';
