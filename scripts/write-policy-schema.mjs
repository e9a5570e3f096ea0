// Writes policy.schema.json from the built zod schema, so editors can validate policy files.
import { writeFileSync } from 'node:fs';
import { policyJsonSchema } from '../dist/policy/json-schema.js';

writeFileSync(new URL('../policy.schema.json', import.meta.url), JSON.stringify(policyJsonSchema, null, 2) + '\n');
