import { PassThrough } from 'node:stream';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FormReview, UrlReview } from '../../../src/adapters/sdk/consent-ui.js';
import { formDefaults, formFields } from '../../../src/adapters/sdk/form-fields.js';
import {
  createTerminalConsentUi,
  FINISHED_QUESTION,
  FORM_START_QUESTION,
  SEND_QUESTION,
  URL_QUESTION,
} from '../../../src/adapters/sdk/terminal-ui.js';
import type { FlowView } from '../../../src/core/flows.js';
import { createGuard } from '../../../src/core/guard.js';
import { auditForm } from '../../../src/form/index.js';
import { defaultPolicy } from '../../../src/policy/index.js';
import { renderUrl } from '../../../src/render/index.js';
import { analyzeUrl } from '../../../src/url/index.js';
import { connectWithHandler } from './harness.js';

const policy = defaultPolicy.base;
const SERVER = { key: 'payments', name: 'billing-server', version: '2.1.0' };
const SIGN_IN = 'https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766&state=9d1f7c2b';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Drives the UI like a user: waits for each question to be printed, then types the answer. */
function terminal(ansi = false) {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  let cursor = 0;
  const ui = createTerminalConsentUi({ input, output, ansi });
  cleanups.push(() => ui.close());
  return {
    ui,
    input,
    output: () => text,
    /** Waits until `prompt` is printed (after the previous one), then types `line`. */
    async answer(prompt: string, line: string) {
      await vi.waitFor(
        () => {
          const at = text.indexOf(prompt, cursor);
          if (at < 0) throw new Error(`still waiting for ${JSON.stringify(prompt)}`);
          cursor = at + prompt.length;
        },
        { interval: 2 },
      );
      input.write(`${line}\n`);
    },
  };
}

function urlReview(url: string, message = 'Sign in to GitHub', signal = new AbortController().signal): UrlReview {
  const analysis = analyzeUrl(url, policy);
  return {
    server: SERVER,
    message,
    url,
    elicitationId: 'e-1',
    analysis,
    rendered: {
      plain: renderUrl(analysis.display, 'plain', analysis.findings),
      ansi: renderUrl(analysis.display, 'ansi', analysis.findings),
      html: renderUrl(analysis.display, 'html', analysis.findings),
    },
    source: 'elicitation/create',
    signal,
  };
}

const PROJECT = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Project name', minLength: 1, maxLength: 40, default: 'demo' },
    size: { type: 'integer', title: 'Team size', minimum: 1, maximum: 10, default: 3 },
    visibility: {
      type: 'string',
      title: 'Visibility',
      oneOf: [
        { const: 'private', title: 'Only me' },
        { const: 'public', title: 'Everyone' },
      ],
    },
  },
  required: ['name', 'size'],
};

function formReview(
  requestedSchema: Record<string, unknown>,
  message = 'Create a project',
  signal = new AbortController().signal,
): FormReview {
  const audit = auditForm({ message, requestedSchema }, policy);
  const fields = formFields(requestedSchema, audit);
  return { server: SERVER, message, requestedSchema, audit, fields, defaults: formDefaults(fields), signal };
}

describe('terminal UI: URL review', () => {
  it('shows the server, the message and the full URL with the domain marked, and accepts on y', async () => {
    const t = terminal();
    const decision = t.ui.reviewUrl(urlReview(SIGN_IN));
    await t.answer(URL_QUESTION, 'y');
    expect(await decision).toBe('accept');
    const out = t.output();
    expect(out).toContain('Server "billing-server" 2.1.0 (configured as "payments") asks you to open a web page');
    expect(out).toContain('Sign in to GitHub');
    expect(out).toContain(SIGN_IN.replace('github.com', '[github.com]'));
    expect(out).toContain('nothing has been loaded');
  });

  it('declines on n, cancels on c, and asks again on anything else', async () => {
    const t = terminal();
    const declined = t.ui.reviewUrl(urlReview(SIGN_IN));
    await t.answer(URL_QUESTION, 'n');
    expect(await declined).toBe('decline');
    const cancelled = t.ui.reviewUrl(urlReview(SIGN_IN));
    await t.answer(URL_QUESTION, 'sure');
    await t.answer(URL_QUESTION, 'c');
    expect(await cancelled).toBe('cancel');
    expect(t.output()).toContain('Please answer y, n or c.');
  });

  it('ignores an answer typed before the question was shown', async () => {
    const t = terminal();
    t.input.write('y\n');
    await new Promise((r) => setTimeout(r, 10));
    const decision = t.ui.reviewUrl(urlReview(SIGN_IN));
    await t.answer(URL_QUESTION, 'n');
    expect(await decision).toBe('decline');
  });

  it('escapes a bidi override and an escape sequence in the server message and name', async () => {
    const t = terminal();
    const review = {
      ...urlReview(SIGN_IN, 'Open invoice \u202Efdp.exe\u001b[2J now'),
      server: { key: null, name: 'evil\u202Eserver', version: null },
    };
    const decision = t.ui.reviewUrl(review);
    await t.answer(URL_QUESTION, 'n');
    await decision;
    const out = t.output();
    expect(out).toContain('Open invoice \\u{202E}fdp.exe\\u{1B}[2J now');
    expect(out).toContain('Server "evil\\u{202E}server"');
    expect(out).not.toContain('\u202E');
    expect(out).not.toContain('\u001b');
  });

  it('styles the domain with ANSI when asked, and shows the guard warnings', async () => {
    const t = terminal(true);
    const decision = t.ui.reviewUrl(urlReview('https://paypal.example.net/pay'));
    await t.answer(URL_QUESTION, 'c');
    await decision;
    const out = t.output();
    expect(out).toContain('\u001b[1;4mexample.net');
    expect(out).toContain('The guard has warnings about this URL');
  });

  it('answers cancel when the server withdraws the request, or the input ends', async () => {
    const t = terminal();
    const controller = new AbortController();
    const withdrawn = t.ui.reviewUrl(urlReview(SIGN_IN, 'Sign in', controller.signal));
    await vi.waitFor(() => expect(t.output()).toContain(URL_QUESTION));
    controller.abort();
    expect(await withdrawn).toBe('cancel');
    expect(t.output()).toContain('The server withdrew this request.');
    const ended = t.ui.reviewUrl(urlReview(SIGN_IN));
    t.input.end();
    expect(await ended).toBe('cancel');
  });
});

describe('terminal UI: forms', () => {
  it('keeps a default on Enter, takes an edited value, validates, and sends after review', async () => {
    const t = terminal();
    const answer = t.ui.reviewForm(formReview(PROJECT));
    await t.answer(FORM_START_QUESTION, 'y');
    await t.answer('Project name (name) ["demo"]: ', '');
    await t.answer('Team size (size) [3]: ', '11');
    await t.answer('Team size (size) [3]: ', '7');
    await t.answer('Visibility (visibility) (optional, Enter to skip): ', '2');
    await t.answer(SEND_QUESTION, 'y');
    expect(await answer).toEqual({ action: 'accept', content: { name: 'demo', size: 7, visibility: 'public' } });
    const out = t.output();
    expect(out).toContain('Team size (size) is above maximum 10. Try again.');
    expect(out).toContain('1. Project name (name): text, 1–40 characters, required');
    expect(out).toContain('default: "demo"');
    expect(out).toContain('2) Everyone [public]');
    expect(out).toContain('Team size (size): 7');
  });

  it('lets the user edit the answers before sending', async () => {
    const t = terminal();
    const answer = t.ui.reviewForm(formReview(PROJECT));
    await t.answer(FORM_START_QUESTION, 'y');
    await t.answer('Project name (name) ["demo"]: ', 'atlas');
    await t.answer('Team size (size) [3]: ', '');
    await t.answer('Visibility (visibility) (optional, Enter to skip): ', '');
    await t.answer(SEND_QUESTION, 'e');
    await t.answer('Project name (name) ["atlas"]: ', '');
    await t.answer('Team size (size) [3]: ', '4');
    await t.answer('Visibility (visibility) (optional, Enter to skip): ', 'Only me');
    await t.answer(SEND_QUESTION, 'y');
    expect(await answer).toEqual({ action: 'accept', content: { name: 'atlas', size: 4, visibility: 'private' } });
    expect(t.output()).toContain('(left empty: visibility)');
  });

  it('declines before filling in, and cancels at the review', async () => {
    const t = terminal();
    const declined = t.ui.reviewForm(formReview(PROJECT));
    await t.answer(FORM_START_QUESTION, 'n');
    expect(await declined).toEqual({ action: 'decline' });
    const cancelled = t.ui.reviewForm(formReview(PROJECT));
    await t.answer(FORM_START_QUESTION, 'yes');
    await t.answer('Project name (name) ["demo"]: ', '');
    await t.answer('Team size (size) [3]: ', '');
    await t.answer('Visibility (visibility) (optional, Enter to skip): ', '');
    await t.answer(SEND_QUESTION, 'cancel');
    expect(await cancelled).toEqual({ action: 'cancel' });
  });

  it('shows the audit warning for a personal-data field and escapes field text', async () => {
    const t = terminal();
    const schema = {
      type: 'object',
      properties: { email: { type: 'string', format: 'email', title: 'E-mail\u202E', description: 'Where we\nwrite to you' } },
    };
    const answer = t.ui.reviewForm(formReview(schema));
    await t.answer(FORM_START_QUESTION, 'c');
    expect(await answer).toEqual({ action: 'cancel' });
    const out = t.output();
    expect(out).toContain('warning W_PERSONAL_FIELD');
    expect(out).toContain('E-mail\\u{202E} (email): text, email, optional, personal data');
    expect(out).toContain('       Where we\n       write to you\n');
    expect(out).not.toContain('\u202E');
  });
});

describe('terminal UI: after the browser was opened', () => {
  function flowView(host: string): FlowView {
    const analysis = analyzeUrl(`https://${host}/authorize`, policy);
    return {
      navigationId: 'nav_1',
      elicitationId: 'e-1',
      state: 'OUT_OF_BAND_PENDING',
      lineage: null,
      server: SERVER,
      message: 'Sign in',
      url: `https://${host}/authorize`,
      analysis,
      createdAt: 0,
      expiresAt: 1,
      consentReceiptId: 'cr_1',
    };
  }

  it('answers finished on Enter and cancel on c', async () => {
    const t = terminal();
    const finished = t.ui.afterOpen(flowView('github.com'), new AbortController().signal);
    await t.answer(FINISHED_QUESTION, '');
    expect(await finished).toBe('finished');
    const cancelled = t.ui.afterOpen(flowView('github.com'), new AbortController().signal);
    await t.answer(FINISHED_QUESTION, 'c');
    expect(await cancelled).toBe('cancel');
    expect(t.output()).toContain('Opened in your browser: github.com');
  });

  it('gives the screen to a new request and asks again afterwards', async () => {
    const t = terminal();
    const waiting = t.ui.afterOpen(flowView('github.com'), new AbortController().signal);
    await vi.waitFor(() => expect(t.output()).toContain(FINISHED_QUESTION));
    const review = t.ui.reviewUrl(urlReview('https://checkout.stripe.com/pay'));
    await t.answer(URL_QUESTION, 'n');
    expect(await review).toBe('decline');
    expect(t.output()).toContain('Paused: another request needs your answer first.');
    await t.answer(FINISHED_QUESTION, '');
    expect(await waiting).toBe('finished');
  });

  it('stops asking when the flow no longer waits', async () => {
    const t = terminal();
    const controller = new AbortController();
    const waiting = t.ui.afterOpen(flowView('github.com'), controller.signal);
    await vi.waitFor(() => expect(t.output()).toContain(FINISHED_QUESTION));
    controller.abort();
    expect(await waiting).toBe('waiting');
  });
});

describe('terminal UI behind the elicitation handler', () => {
  it('runs a URL elicitation end to end: the user types y, the URL opens, the server gets accept', async () => {
    const t = terminal();
    const opened: string[] = [];
    const guard = createGuard({ server: 'github' });
    const { server, close } = await connectWithHandler(guard, t.ui, { opener: (url) => void opened.push(url) });
    cleanups.unshift(close);
    const result = server.request(
      { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: SIGN_IN, elicitationId: 'tty-1' } },
      ElicitResultSchema,
    );
    await t.answer(URL_QUESTION, 'y');
    expect(await result).toEqual({ action: 'accept' });
    expect(opened).toEqual([SIGN_IN]);
    // The follow-up question comes after the answer; Enter confirms the flow.
    await t.answer(FINISHED_QUESTION, '');
    await vi.waitFor(() => expect(guard.flow('tty-1')!.state).toBe('REQUIREMENT_VERIFIED'));
  });
});
