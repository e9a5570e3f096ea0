export { policySchema, type PolicyInput, type Profile } from './schema.js';
export { parsePolicy, loadPolicy, defaultPolicy, toPolicyDocument, type Policy, type PolicyDocument } from './policy.js';
export { policyJsonSchema } from './json-schema.js';
export { examplePolicy } from './example.js';
