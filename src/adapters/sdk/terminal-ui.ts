/**
 * A `ConsentUi` for command-line hosts, over any pair of streams (a TTY, or pipes in tests).
 *
 * Every piece of server text is escaped before it is printed (control and bidi characters become
 * visible `\u{…}` escapes), so a server cannot rewrite the terminal or reverse what the user reads.
 * Answers typed before a question was shown are thrown away: consent is only what the user typed
 * after seeing the question. One question is on screen at a time; a new elicitation takes the
 * screen from a pending "have you finished?" question, which is asked again afterwards.
 */
import { createInterface, type Interface } from 'node:readline';
import type { ServerIdentity } from '../../core/events.js';
import type { FlowView } from '../../core/flows.js';
import type { Finding } from '../../protocol/verdict.js';
import { escapeText } from '../../render/index.js';
import type { AfterOpenAnswer, ConsentUi, FormAnswer, FormReview, UrlDecision, UrlReview } from './consent-ui.js';
import { parseFieldInput, type FormContent, type FormField, type FormValue } from './form-fields.js';

export interface TerminalConsentUiOptions {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** Style the URL with ANSI escapes (domain bold and underlined, subdomains dimmed). Default: false. */
  readonly ansi?: boolean;
}

/** The terminal UI; `close()` releases the input stream. */
export interface TerminalConsentUi extends ConsentUi {
  afterOpen(flow: FlowView, signal: AbortSignal): Promise<AfterOpenAnswer>;
  close(): void;
}

export const URL_QUESTION = 'Open this URL in your browser? [y]es / [n]o (decline) / [c]ancel ';
export const FORM_START_QUESTION = 'Fill in this form? [y]es / [n]o (decline) / [c]ancel ';
export const SEND_QUESTION = 'Send? [y]es / [e]dit / [n]o (decline) / [c]ancel ';
export const FINISHED_QUESTION = 'Press Enter when you have finished in the browser (or c to cancel) ';

const RULE = '─'.repeat(60);

/**
 * Creates the terminal consent UI.
 * @example
 *   const ui = createTerminalConsentUi({ input: process.stdin, output: process.stderr, ansi: process.stderr.isTTY });
 *   client.setRequestHandler(ElicitRequestSchema, createElicitationHandler(guard, ui));
 */
export function createTerminalConsentUi(options: TerminalConsentUiOptions): TerminalConsentUi {
  const reader = new LineReader(options.input);
  const dialogs = new DialogQueue();
  const out = (text: string) => void options.output.write(text);
  const ask = (prompt: string, signal: AbortSignal): Promise<Read> => {
    reader.discard();
    out(prompt);
    return reader.next(signal);
  };
  const ansi = options.ansi ?? false;

  return {
    reviewUrl(request: UrlReview): Promise<UrlDecision> {
      return dialogs.review(() => reviewUrl(request, ansi, out, ask));
    },
    reviewForm(request: FormReview): Promise<FormAnswer> {
      return dialogs.review(() => reviewForm(request, out, ask));
    },
    afterOpen(flow: FlowView, signal: AbortSignal): Promise<AfterOpenAnswer> {
      return dialogs.followUp(signal, (preempt) => afterOpen(flow, signal, preempt, out, ask));
    },
    close(): void {
      reader.close();
    },
  };
}

type Out = (text: string) => void;
type Ask = (prompt: string, signal: AbortSignal) => Promise<Read>;

async function reviewUrl(request: UrlReview, ansi: boolean, out: Out, ask: Ask): Promise<UrlDecision> {
  if (request.signal.aborted) return 'cancel';
  out(
    `\n${RULE}\n${serverLabel(request.server)} asks you to open a web page${
      request.source === 'url-elicitation-required' ? ' before it can go on' : ''
    }.\n`,
  );
  out(messageBlock(request.message));
  out('\n  URL (shown in full; nothing has been loaded):\n');
  out(indent(ansi ? request.rendered.ansi : request.rendered.plain, '    ') + '\n');
  if (request.analysis.verdict === 'warn') out('\n  The guard has warnings about this URL: read them before you agree.\n');
  out('\n');
  for (;;) {
    const read = await ask(URL_QUESTION, request.signal);
    switch (read.kind) {
      case 'end':
        out('\n');
        return 'cancel';
      case 'aborted':
        out('\n  (The server withdrew this request.)\n');
        return 'cancel';
      case 'line': {
        const answer = read.text.trim().toLowerCase();
        if (answer === 'y' || answer === 'yes') return 'accept';
        if (answer === 'n' || answer === 'no') return 'decline';
        if (answer === 'c' || answer === 'cancel') return 'cancel';
        out('  Please answer y, n or c.\n');
      }
    }
  }
}

async function reviewForm(request: FormReview, out: Out, ask: Ask): Promise<FormAnswer> {
  const { signal } = request;
  if (signal.aborted) return { action: 'cancel' };
  out(`\n${RULE}\n${serverLabel(request.server)} asks you to fill in a form.\n`);
  out(messageBlock(request.message));
  const notes = findingLines(request.audit.findings);
  if (notes !== '') out(notes);
  out('\n  Fields:\n');
  request.fields.forEach((field, i) => out(describeField(field, i + 1)));
  out('\n');
  const start = await choose(ask, FORM_START_QUESTION, signal, out, ['y', 'n', 'c']);
  switch (start) {
    case 'y':
      break;
    case 'n':
      return { action: 'decline' };
    case 'c':
    case null:
      return { action: 'cancel' };
  }
  let values: FormContent = { ...request.defaults };
  for (;;) {
    const filled = await fillFields(request.fields, values, signal, out, ask);
    if (filled === null) return { action: 'cancel' };
    values = filled;
    out(`\n  You are about to send to ${serverLabel(request.server)}:\n`);
    out(summary(request.fields, values));
    const next = await choose(ask, SEND_QUESTION, signal, out, ['y', 'e', 'n', 'c']);
    switch (next) {
      case 'y':
        return { action: 'accept', content: values };
      case 'e':
        continue;
      case 'n':
        return { action: 'decline' };
      case 'c':
      case null:
        return { action: 'cancel' };
    }
  }
}

/** Asks for every field in turn, current values pre-filled. `null` when the user or the server gave up. */
async function fillFields(
  fields: readonly FormField[],
  current: FormContent,
  signal: AbortSignal,
  out: Out,
  ask: Ask,
): Promise<FormContent | null> {
  const values: FormContent = {};
  for (const field of fields) {
    const present = Object.hasOwn(current, field.name) ? current[field.name]! : null;
    const value = await askField(field, present, signal, out, ask);
    if (value === CANCELLED) return null;
    if (value !== SKIPPED) values[field.name] = value;
  }
  return values;
}

const CANCELLED = Symbol('cancelled');
const SKIPPED = Symbol('skipped');

async function askField(
  field: FormField,
  present: FormValue | null,
  signal: AbortSignal,
  out: Out,
  ask: Ask,
): Promise<FormValue | typeof CANCELLED | typeof SKIPPED> {
  if (field.options.length > 0) out(optionList(field));
  const hint = present !== null ? ` [${showValue(field, present)}]` : field.required ? '' : ' (optional, Enter to skip)';
  const clear = !field.required && present !== null ? ' (- to leave empty)' : '';
  for (;;) {
    const read = await ask(`  ${fieldLabel(field)}${hint}${clear}: `, signal);
    if (read.kind !== 'line') {
      out(read.kind === 'aborted' ? '\n  (The server withdrew this request.)\n' : '\n');
      return CANCELLED;
    }
    const text = read.text;
    if (text === '') {
      if (present !== null) return present;
      if (!field.required) return SKIPPED;
      out('    A value is required.\n');
      continue;
    }
    if (text.trim() === '-' && !field.required && present !== null) return SKIPPED;
    const parsed = parseFieldInput(field, text);
    if (parsed.ok) return parsed.value;
    out(`    ${escapeText(fieldLabel(field))} ${parsed.problem}. Try again.\n`);
  }
}

async function afterOpen(
  flow: FlowView,
  signal: AbortSignal,
  preempt: AbortSignal,
  out: Out,
  ask: Ask,
): Promise<AfterOpenAnswer | typeof PREEMPTED> {
  if (signal.aborted) return 'waiting';
  const host = flow.analysis.display.host ?? flow.analysis.display.hostAscii ?? 'the page';
  out(`\n  Opened in your browser: ${escapeText(host)} (for ${serverLabel(flow.server)}).\n`);
  const both = AbortSignal.any([signal, preempt]);
  for (;;) {
    const read = await ask(FINISHED_QUESTION, both);
    switch (read.kind) {
      case 'end':
        out('\n');
        return 'waiting';
      case 'aborted':
        if (preempt.aborted && !signal.aborted) {
          out('\n  (Paused: another request needs your answer first.)\n');
          return PREEMPTED;
        }
        out('\n  (This browser step no longer needs an answer here.)\n');
        return 'waiting';
      case 'line': {
        const answer = read.text.trim().toLowerCase();
        if (answer === '') return 'finished';
        if (answer === 'c' || answer === 'cancel') return 'cancel';
        out('  Press Enter when done, or type c to cancel.\n');
      }
    }
  }
}

/** Asks until the first letter of the answer is one of `letters`; `null` on end of input or abort. */
async function choose<L extends string>(ask: Ask, prompt: string, signal: AbortSignal, out: Out, letters: readonly L[]): Promise<L | null> {
  for (;;) {
    const read = await ask(prompt, signal);
    if (read.kind === 'end') {
      out('\n');
      return null;
    }
    if (read.kind === 'aborted') {
      out('\n  (The server withdrew this request.)\n');
      return null;
    }
    const word = read.text.trim().toLowerCase();
    const letter = letters.find((l) => word === l || (word.length > 1 && WORDS[l]?.includes(word)));
    if (letter !== undefined) return letter;
    out(`  Please answer ${letters.join(', ')}.\n`);
  }
}

const WORDS: Readonly<Record<string, readonly string[]>> = { y: ['yes'], n: ['no'], c: ['cancel'], e: ['edit'] };

// ------------------------------------------------------------------ formatting

function serverLabel(server: ServerIdentity): string {
  const name =
    server.name === null
      ? 'An unnamed server'
      : `Server "${escapeText(server.name)}"${server.version === null ? '' : ` ${escapeText(server.version)}`}`;
  return server.key === null ? name : `${name} (configured as "${escapeText(server.key)}")`;
}

function messageBlock(message: string): string {
  const lines = message.split(/\r\n|\n/).map((line) => `  │ ${escapeText(line)}`);
  return lines.join('\n') + '\n';
}

function indent(text: string, pad: string): string {
  return text
    .split('\n')
    .map((line) => pad + line)
    .join('\n');
}

function findingLines(findings: readonly Finding[]): string {
  let text = '';
  for (const f of findings) {
    if (f.severity === 'info') continue;
    text += `  ${f.severity === 'error' ? '✖ error' : '⚠ warning'} ${escapeText(f.code)}: ${escapeText(f.message)}\n`;
  }
  return text;
}

function fieldLabel(field: FormField): string {
  return field.title === null ? escapeText(field.name) : `${escapeText(field.title)} (${escapeText(field.name)})`;
}

function describeField(field: FormField, n: number): string {
  const parts = [kindText(field), field.required ? 'required' : 'optional'];
  if (field.class === 'personal') parts.push('personal data');
  let text = `    ${n}. ${fieldLabel(field)}: ${parts.join(', ')}\n`;
  if (field.description !== null)
    text += field.description
      .split(/\r\n|\n/)
      .map((line) => `       ${escapeText(line)}\n`)
      .join('');
  if (field.default !== null) text += `       default: ${showValue(field, field.default)}\n`;
  return text;
}

function kindText(field: FormField): string {
  const shape = field.shape;
  switch (shape.kind) {
    case 'string': {
      const limits = range(shape.minLength, shape.maxLength, 'characters');
      return ['text', shape.format, limits].filter((p) => p !== null && p !== '').join(', ');
    }
    case 'number':
      return [shape.integer ? 'whole number' : 'number', range(shape.minimum, shape.maximum, '')].filter((p) => p !== '').join(', ');
    case 'boolean':
      return 'yes or no';
    case 'single-select':
      return 'choose one';
    case 'multi-select':
      return ['choose any (comma-separated)', range(shape.minItems, shape.maxItems, 'choices')].filter((p) => p !== '').join(', ');
    case 'unknown':
      return 'unsupported type';
  }
}

function range(low: number | null, high: number | null, unit: string): string {
  const suffix = unit === '' ? '' : ` ${unit}`;
  if (low !== null && high !== null) return `${low}–${high}${suffix}`;
  if (low !== null) return `at least ${low}${suffix}`;
  if (high !== null) return `at most ${high}${suffix}`;
  return '';
}

function optionList(field: FormField): string {
  return field.options
    .map((o, i) => `     ${i + 1}) ${o.title === null ? escapeText(o.value) : `${escapeText(o.title)} [${escapeText(o.value)}]`}\n`)
    .join('');
}

function showValue(field: FormField, value: FormValue): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.length === 0 ? '(none)' : value.map((v) => escapeText(v)).join(', ');
  return field.shape.kind === 'string' ? `"${escapeText(value)}"` : escapeText(value);
}

function summary(fields: readonly FormField[], values: FormContent): string {
  let text = '';
  const skipped: string[] = [];
  for (const field of fields) {
    if (Object.hasOwn(values, field.name)) text += `    ${fieldLabel(field)}: ${showValue(field, values[field.name]!)}\n`;
    else skipped.push(escapeText(field.name));
  }
  if (skipped.length > 0) text += `    (left empty: ${skipped.join(', ')})\n`;
  return text;
}

// ------------------------------------------------------------------ input

type Read = { readonly kind: 'line'; readonly text: string } | { readonly kind: 'end' } | { readonly kind: 'aborted' };

const END: Read = { kind: 'end' };
const ABORTED: Read = { kind: 'aborted' };

/** Lines from the input, one reader at a time; lines typed ahead are buffered until `discard`. */
class LineReader {
  readonly #rl: Interface;
  readonly #buffer: string[] = [];
  #waiter: ((read: Read) => void) | null = null;
  #ended = false;

  constructor(input: NodeJS.ReadableStream) {
    this.#rl = createInterface({ input, terminal: false, crlfDelay: Infinity });
    this.#rl.on('line', (line: string) => {
      const waiter = this.#waiter;
      if (waiter === null) this.#buffer.push(line);
      else {
        this.#waiter = null;
        waiter({ kind: 'line', text: line });
      }
    });
    this.#rl.on('close', () => {
      this.#ended = true;
      const waiter = this.#waiter;
      this.#waiter = null;
      waiter?.(END);
    });
  }

  discard(): void {
    this.#buffer.length = 0;
  }

  next(signal: AbortSignal): Promise<Read> {
    const line = this.#buffer.shift();
    if (line !== undefined) return Promise.resolve({ kind: 'line', text: line });
    if (this.#ended) return Promise.resolve(END);
    if (signal.aborted) return Promise.resolve(ABORTED);
    return new Promise<Read>((resolve) => {
      const onAbort = () => {
        this.#waiter = null;
        resolve(ABORTED);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiter = (read) => {
        signal.removeEventListener('abort', onAbort);
        resolve(read);
      };
    });
  }

  close(): void {
    this.#rl.close();
  }
}

// ------------------------------------------------------------------ one dialog at a time

const PREEMPTED = Symbol('preempted');

type Job = (preempt: AbortSignal) => Promise<'done' | typeof PREEMPTED>;

/**
 * Runs dialogs one at a time. Reviews go first: the server is waiting for them. A follow-up
 * question that is on screen when a review arrives is withdrawn and asked again afterwards.
 */
class DialogQueue {
  readonly #reviews: Job[] = [];
  readonly #followUps: Job[] = [];
  #active: { readonly kind: 'review' | 'follow-up'; readonly preempt: AbortController } | null = null;

  review<T>(dialog: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#reviews.push(async () => {
        await dialog().then(resolve, reject);
        return 'done';
      });
      if (this.#active?.kind === 'follow-up') this.#active.preempt.abort();
      this.#pump();
    });
  }

  followUp<T>(signal: AbortSignal, dialog: (preempt: AbortSignal) => Promise<T | typeof PREEMPTED>): Promise<T | 'waiting'> {
    return new Promise<T | 'waiting'>((resolve, reject) => {
      this.#followUps.push(async (preempt) => {
        if (signal.aborted) {
          resolve('waiting');
          return 'done';
        }
        try {
          const result = await dialog(preempt);
          if (result === PREEMPTED) return PREEMPTED;
          resolve(result);
        } catch (error) {
          reject(error);
        }
        return 'done';
      });
      this.#pump();
    });
  }

  #pump(): void {
    if (this.#active !== null) return;
    const fromReviews = this.#reviews.length > 0;
    const job = fromReviews ? this.#reviews.shift() : this.#followUps.shift();
    if (job === undefined) return;
    const active = { kind: fromReviews ? ('review' as const) : ('follow-up' as const), preempt: new AbortController() };
    this.#active = active;
    job(active.preempt.signal)
      .then((outcome) => {
        if (outcome === PREEMPTED) this.#followUps.unshift(job);
      })
      .finally(() => {
        this.#active = null;
        this.#pump();
      });
  }
}
