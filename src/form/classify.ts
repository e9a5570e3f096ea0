/**
 * The sensitive-field classifier: what each field of a form asks for, `credential | payment |
 * personal | ordinary`, with the reasons (never a value).
 *
 * Signals, strongest first:
 * 1. Structural: `format: "password"`, `writeOnly: true`, a secret-shaped default (JWT, API-key
 *    prefix, private-key block, via `src/secrets`), a card-number-shaped default (Luhn).
 * 2. The labels: the property name (split into words) and the `title`.
 * 3. The `description`, only when the labels name nothing (no lexicon term, no ordinary noun):
 *    "Your email (we never ask for your password)" does not turn `email` into a credential.
 * 4. The request `message`, only for a free-entry field whose labels are generic (`value`,
 *    `input`, `code`, `key`...) and which has no other signal: "Enter your GitHub token" makes
 *    `value` a credential, never `email`.
 * Then form context settles the ambiguous terms (`pin code`, `security code`, `expiry`), and
 * the kind of answer caps the class (a yes/no or a choice cannot carry a secret).
 */

import { findSecret } from '../secrets/index.js';
import type { MatchRule } from './lexicon.js';
import { readText, type TermHit, type TextReading } from './matcher.js';
import type { FieldSpec } from './schema.js';
import { isFreeEntry, type FieldShape } from './shape.js';
import type { FieldClass, FieldReport } from './types.js';

const RANK: Readonly<Record<FieldClass, number>> = { ordinary: 0, personal: 1, payment: 2, credential: 3 };

/** A signal with its class already decided (or still depending on the form, see `rule`). */
interface Signal {
  readonly reason: string;
  readonly class: FieldClass;
  readonly rule: MatchRule;
}

interface FieldSignals {
  readonly spec: FieldSpec;
  readonly signals: readonly Signal[];
  readonly readings: readonly TextReading[];
}

function fromHit(hit: TermHit): Signal {
  return { reason: `${hit.source}:${hit.entry.term}`, class: hit.entry.class, rule: hit.entry.rule };
}

const EMPTY: TextReading = { hits: [], identified: false, generic: true, mentionsAddress: false, mentionsPayment: false };

/** 13–19 digits (spaces or dashes allowed) that pass the Luhn check. */
export function looksLikeCardNumber(value: string): boolean {
  if (value.length > 32 || !/^[\d -]+$/.test(value)) return false;
  const digits = value.replace(/[ -]/g, '');
  if (digits.length < 13 || digits.length > 19 || /^(\d)\1+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function structuralSignals(spec: FieldSpec): Signal[] {
  const out: Signal[] = [];
  if (spec.formatPassword) out.push({ reason: 'format:password', class: 'credential', rule: 'strong' });
  if (spec.writeOnly) out.push({ reason: 'writeOnly', class: 'credential', rule: 'strong' });
  if (spec.shape.kind === 'string' && spec.shape.format === 'email') out.push({ reason: 'format:email', class: 'personal', rule: 'strong' });
  for (const value of spec.stringDefaults) {
    const secret = findSecret(value);
    if (secret !== null) out.push({ reason: `default:${secret.kind}`, class: 'credential', rule: 'strong' });
    else if (looksLikeCardNumber(value)) out.push({ reason: 'default:card-number', class: 'payment', rule: 'strong' });
  }
  return out;
}

/** Signals that do not depend on the other fields; the message only for generic free-entry fields. */
function fieldSignals(spec: FieldSpec, message: TextReading): FieldSignals {
  const name = readText(spec.name, 'name');
  const title = spec.title === null ? EMPTY : readText(spec.title, 'title');
  const identified = name.identified || title.identified;
  let hits: TermHit[] = [...name.hits, ...title.hits];
  // A bare `name` gives way to the other label when that one names something else (`name` titled "Project name").
  hits = hits.filter((h) => h.entry.rule !== 'bare' || (h.source === 'name' ? !(title.identified && title.hits.length === 0) : !(name.identified && name.hits.length === 0)));
  const readings: TextReading[] = [name, title];
  if (!identified && spec.description !== null) {
    const description = readText(spec.description, 'description');
    readings.push(description);
    hits.push(...description.hits);
  }
  const signals = [...structuralSignals(spec), ...hits.map(fromHit)];
  const generic = name.generic && title.generic;
  if (signals.length === 0 && generic && isFreeEntry(spec.shape)) signals.push(...message.hits.map(fromHit));
  return { spec, signals, readings };
}

interface FormContext {
  readonly address: boolean;
  readonly payment: boolean;
}

function resolve(signal: Signal, context: FormContext): FieldClass | null {
  switch (signal.rule) {
    case 'strong':
    case 'bare':
    case 'head':
      return signal.class;
    case 'needs-payment':
      return context.payment ? 'payment' : null;
    case 'security-code':
      return context.payment ? 'payment' : 'credential';
    case 'pin-code':
      return context.address ? 'personal' : 'credential';
  }
}

function capFor(shape: FieldShape): { readonly max: FieldClass; readonly reason: string } | null {
  switch (shape.kind) {
    case 'boolean':
      return { max: 'ordinary', reason: 'type:boolean' };
    case 'single-select':
    case 'multi-select':
      return { max: 'personal', reason: 'type:choice' };
    case 'string':
    case 'number':
    case 'unknown':
      return null;
  }
}

function report(field: FieldSignals, context: FormContext): FieldReport {
  const resolved: { readonly reason: string; readonly class: FieldClass }[] = [];
  for (const signal of field.signals) {
    const cls = resolve(signal, context);
    if (cls !== null) resolved.push({ reason: signal.reason, class: cls });
  }
  const highest = (limit: FieldClass): FieldClass => resolved.reduce<FieldClass>((best, s) => (RANK[s.class] > RANK[best] && RANK[s.class] <= RANK[limit] ? s.class : best), 'ordinary');
  const reasonsOf = (cls: FieldClass): string[] => [...new Set(resolved.filter((s) => s.class === cls).map((s) => s.reason))];
  const best = highest('credential');
  const cap = capFor(field.spec.shape);
  if (cap === null || RANK[best] <= RANK[cap.max]) return { name: field.spec.name, class: best, reasons: best === 'ordinary' ? [] : reasonsOf(best) };
  // The answer cannot carry what the labels name: the class says what it can carry, the reasons keep what was seen.
  const capped = highest(cap.max);
  return { name: field.spec.name, class: capped, reasons: [...(capped === 'ordinary' ? [] : reasonsOf(capped)), ...reasonsOf(best), cap.reason] };
}

/** Classifies every field of a form, in order. `message` is the request's message, if any. */
export function classifyFields(fields: readonly FieldSpec[], message: string | null): FieldReport[] {
  const messageReading = message === null ? EMPTY : readText(message, 'message');
  const all = fields.map((spec) => fieldSignals(spec, messageReading));
  const strongPayment = all.map((f) => f.signals.some((s) => s.class === 'payment' && s.rule === 'strong'));
  const anyPaymentWords = messageReading.mentionsPayment || all.some((f) => f.readings.some((r) => r.mentionsPayment));
  const anyAddressWords = messageReading.mentionsAddress || all.some((f) => f.readings.some((r) => r.mentionsAddress));
  return all.map((field, i) => {
    const context: FormContext = {
      payment: anyPaymentWords || strongPayment.some((p, j) => p && j !== i),
      address: anyAddressWords || addressInOwnTexts(field.spec),
    };
    return report(field, context);
  });
}

/** The field's own title and description mention an address ("PIN code of your delivery area"). */
function addressInOwnTexts(spec: FieldSpec): boolean {
  const texts = [spec.title, spec.description].filter((t): t is string => t !== null);
  return texts.some((t) => readText(t, 'description').mentionsAddress);
}
