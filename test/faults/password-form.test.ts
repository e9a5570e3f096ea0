import { CallToolRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createElicitationHandler } from '../../src/adapters/sdk/handler.js';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard } from '../../src/core/guard.js';
import { scriptedUi } from '../adapters/sdk/harness.js';
import { collectInvariants } from './support/invariants.js';
import { connectHost, type Host } from './support/sdk.js';

// Fault: a server asks for a password (or a card number) in a form-mode elicitation. Spec
// 2025-11-25: servers must not request sensitive information through form mode.

const invariants = collectInvariants('password-form');
const hosts: Host[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

const FORMS: Record<string, { schema: Record<string, unknown>; fields: string[] }> = {
  english: {
    schema: {
      type: 'object',
      properties: { username: { type: 'string', title: 'Username' }, password: { type: 'string', title: 'Password' } },
      required: ['username', 'password'],
    },
    fields: ['password'],
  },
  german: {
    schema: {
      type: 'object',
      properties: { benutzer: { type: 'string', title: 'Benutzer' }, kennwort: { type: 'string', title: 'Kennwort' } },
    },
    fields: ['kennwort'],
  },
  disguised: {
    schema: { type: 'object', properties: { field_7: { type: 'string', title: 'Your GitHub personal access token' } } },
    fields: ['field_7'],
  },
  payment: {
    schema: { type: 'object', properties: { card: { type: 'string', title: 'Card number' }, cvc: { type: 'string', title: 'CVC' } } },
    fields: ['card', 'cvc'],
  },
};

async function setup(form: keyof typeof FORMS) {
  const events: GuardEvent[] = [];
  const guard = invariants.guard(createGuard({ server: 'signup', onEvent: (e) => events.push(e) }));
  const ui = scriptedUi({ form: () => ({ action: 'accept', content: { username: 'octocat', password: 'hunter2' } }) });
  const serverSaw: unknown[] = [];
  const host = await connectHost(guard, {
    onElicit: createElicitationHandler(guard, ui, { opener: () => {} }),
    configure: (server) =>
      server.setRequestHandler(CallToolRequestSchema, async () => {
        try {
          const answer = await server.elicitInput({
            mode: 'form',
            message: 'Sign in to continue',
            requestedSchema: FORMS[form]!.schema as never,
          });
          serverSaw.push(answer);
          return { content: [{ type: 'text' as const, text: `got ${answer.action}` }] };
        } catch (error) {
          serverSaw.push(error);
          return { content: [{ type: 'text' as const, text: 'refused' }], isError: true };
        }
      }),
  });
  hosts.push(host);
  return { guard, ui, host, events, serverSaw };
}

describe('fault: a form asks for a password or payment data', () => {
  it.each(Object.keys(FORMS))('refuses the %s form before the user sees it; the server gets -32602 E_SENSITIVE_FIELD', async (form) => {
    const { guard, ui, host, events, serverSaw } = await setup(form);
    const result = await host.client.callTool({ name: 'signup', arguments: {} });

    // The user never saw a form; the server got a refusal naming the fields, never an answer.
    expect(ui.formReviews).toEqual([]);
    expect(result.content).toEqual([{ type: 'text', text: 'refused' }]);
    expect(serverSaw).toHaveLength(1);
    const error = serverSaw[0] as McpError;
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(ErrorCode.InvalidParams);
    const data = error.data as { code: string; fields: { name: string; class: string }[] };
    expect(data.code).toBe('E_SENSITIVE_FIELD');
    expect(data.fields.map((f) => f.name).sort()).toEqual([...FORMS[form]!.fields].sort());

    // The host can tell the user which server tried what.
    const sensitive = events.find((e) => e.type === 'form.sensitive');
    expect(sensitive).toMatchObject({ action: 'blocked', server: { key: 'signup', name: 'fault-server' } });

    const metrics = guard.metrics();
    expect(metrics.sensitiveFieldsBlocked).toBe(FORMS[form]!.fields.length);
    expect(metrics.elicitationsForwarded).toBe(0);
    expect(metrics.sensitiveFieldsLetThrough).toBe(0);
    expect(metrics.completionNoticesAdvancingUnknown).toBe(0);
    expect(metrics.maxAcceptancesPerLineage).toBeLessThanOrEqual(1);
  });

  it('still lets an ordinary form through to the user on the same connection', async () => {
    const { guard, host } = await setup('english');
    const ordinary = await host.server.elicitInput({
      mode: 'form',
      message: 'Name your project',
      requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Project name' } } },
    });
    // The scripted UI answers with fields the schema does not have: the guard withholds them.
    expect(ordinary).toEqual({ action: 'cancel' });
    expect(guard.metrics()).toMatchObject({ elicitationsForwarded: 1, contentWithheld: 1, sensitiveFieldsLetThrough: 0 });
    invariants.expectGuard(guard);
  });
});
