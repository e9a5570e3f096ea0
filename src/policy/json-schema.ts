import { z } from 'zod';
import { policySchema } from './schema.js';

/** The policy file's JSON Schema (draft 2020-12), for editors and `policy.schema.json`. */
export const policyJsonSchema: Record<string, unknown> = {
  ...z.toJSONSchema(policySchema, { io: 'input', target: 'draft-2020-12' }),
  $id: 'https://unpkg.com/mcp-elicitation-guard/policy.schema.json',
  title: 'mcp-elicitation-guard policy',
};
