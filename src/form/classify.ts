/**
 * The sensitive-field classifier: what each field of a form asks for, `credential | payment |
 * personal | ordinary`, with the reasons (never a value).
 *
 * Signals, strongest first:
 * 1. Structural: `format: "password"`, `writeOnly: true`, a secret-shaped default or example (a JWT,
 *    a key format, a connection string or URL with a password, a private-key block; `src/secrets`),
 *    a card-number-shaped default (Luhn).
 * 2. The labels: the property name (split into words) and the `title`, read by their head
 *    (`matcher.ts`): `password_strength_rule` asks for a rule, `stripe_key` for a key.
 * 3. The `description`, when the labels name nothing (no lexicon term, no ordinary noun):
 *    "Your email (we never ask for your password)" does not turn `email` into a credential, and a
 *    field named `input` described as "your Gmail app password" is a credential.
 * 4. The form-level texts (the request `message`, the schema's own `title` and `description`, the
 *    option titles of its choice fields), for a free-entry field whose labels name nothing: a field
 *    the classifier cannot read confidently in a form that asks for a secret is that secret.
 * Then form context settles the ambiguous terms (`pin code`, `pincode`, `CAP`, `security code`, `expiry`), the kind of
 * answer caps the class (a yes/no or a choice cannot carry a secret), and a run of choice fields that
 * picks a secret one digit or one seed word at a time is that secret.
 */

import { allSeedWords, findSecret, looksLikeCardNumber, mentionsKeyPrefix } from '../secrets/index.js';
import type { MatchRule } from './lexicon.js';
import { readText, type TermHit, type TextReading } from './matcher.js';
import type { FieldSpec } from './schema.js';
import { isFreeEntry, type FieldShape } from './shape.js';
import type { FieldClass, FieldReport } from './types.js';

export { looksLikeCardNumber };

const RANK: Readonly<Record<FieldClass, number>> = { ordinary: 0, personal: 1, payment: 2, credential: 3 };

/** A signal with its class already decided (or still depending on the form, see `rule`). */
interface Signal {
  readonly reason: string;
  readonly class: FieldClass;
  readonly rule: MatchRule;
  readonly concept?: string;
}

interface FieldSignals {
  readonly spec: FieldSpec;
  readonly signals: Signal[];
  readonly readings: readonly TextReading[];
  /** The labels (name, title) and the description name nothing: form-level texts decide. */
  readonly unread: boolean;
  /** Every word of the labels is a neutral one (`value`, `input`, `field1`) or there are none. */
  readonly generic: boolean;
}

function fromHit(hit: TermHit): Signal {
  return { reason: `${hit.source}:${hit.entry.term}`, class: hit.entry.class, rule: hit.entry.rule, concept: hit.entry.concept };
}

/** What a login form asks for; in a form about online banking, each of these is a payment credential. */
const LOGIN_CONCEPTS: ReadonlySet<string> = new Set(['username', 'password', 'passphrase', 'pin', 'otp', 'credentials', 'secret']);

const EMPTY: TextReading = { hits: [], identified: false, generic: true, mentionsAddress: false, mentionsPayment: false };

function structuralSignals(spec: FieldSpec): Signal[] {
  const out: Signal[] = [];
  if (spec.formatPassword) out.push({ reason: 'format:password', class: 'credential', rule: 'strong' });
  if (spec.writeOnly) out.push({ reason: 'writeOnly', class: 'credential', rule: 'strong' });
  if (spec.shape.kind === 'string' && spec.shape.format === 'email')
    out.push({ reason: 'format:email', class: 'personal', rule: 'strong' });
  for (const value of spec.stringDefaults) {
    const secret = findSecret(value);
    if (secret !== null) out.push({ reason: `default:${secret.kind}`, class: 'credential', rule: 'strong' });
    else if (looksLikeCardNumber(value)) out.push({ reason: 'default:card-number', class: 'payment', rule: 'strong' });
  }
  // An example in the title or description is what the user is expected to replace with their own.
  for (const [where, text] of [
    ['title', spec.title],
    ['description', spec.description],
  ] as const) {
    if (text === null) continue;
    const secret = findSecret(text);
    if (secret !== null && secret.kind !== 'connection-string')
      out.push({ reason: `${where}:example-${secret.kind}`, class: 'credential', rule: 'strong' });
    else if (mentionsKeyPrefix(text)) out.push({ reason: `${where}:key-prefix`, class: 'credential', rule: 'strong' });
  }
  return out;
}

/** Signals that do not depend on the other fields. */
function fieldSignals(spec: FieldSpec): FieldSignals {
  const name = readText(spec.name, 'name');
  const title = spec.title === null ? EMPTY : readText(spec.title, 'title');
  const identified = name.identified || title.identified;
  let hits: TermHit[] = [...name.hits, ...title.hits];
  // A bare `name` gives way to the other label when that one names something else (`name` titled "Project name").
  hits = hits.filter(
    (h) =>
      h.entry.rule !== 'bare' ||
      (h.source === 'name' ? !(title.identified && title.hits.length === 0) : !(name.identified && name.hits.length === 0)),
  );
  const readings: TextReading[] = [name, title];
  let descriptionIdentified = false;
  if (!identified && spec.description !== null) {
    const description = readText(spec.description, 'description');
    readings.push(description);
    hits.push(...description.hits);
    descriptionIdentified = description.identified;
  }
  const signals = [...structuralSignals(spec), ...hits.map(fromHit)];
  return {
    spec,
    signals,
    readings,
    unread: !identified && !descriptionIdentified && signals.length === 0,
    generic: name.generic && title.generic,
  };
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
    case 'phrase':
      return signal.class;
    case 'needs-payment':
      return context.payment ? 'payment' : null;
    case 'needs-address':
      return context.address ? signal.class : null;
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

function report(field: FieldSignals, context: FormContext, runClass: FieldClass | null): FieldReport {
  const resolved: { readonly reason: string; readonly class: FieldClass }[] = [];
  for (const signal of field.signals) {
    const cls = resolve(signal, context);
    if (cls !== null) resolved.push({ reason: signal.reason, class: cls });
  }
  const highest = (limit: FieldClass): FieldClass =>
    resolved.reduce<FieldClass>((best, s) => (RANK[s.class] > RANK[best] && RANK[s.class] <= RANK[limit] ? s.class : best), 'ordinary');
  const reasonsOf = (cls: FieldClass): string[] => [...new Set(resolved.filter((s) => s.class === cls).map((s) => s.reason))];
  // A run of choice fields that together spell a secret carries it, one digit or word each.
  if (runClass !== null) return { name: field.spec.name, class: runClass, reasons: ['choice-run', ...reasonsOf(highest('credential'))] };
  const best = highest('credential');
  const cap = capFor(field.spec.shape);
  if (cap === null || RANK[best] <= RANK[cap.max])
    return { name: field.spec.name, class: best, reasons: best === 'ordinary' ? [] : reasonsOf(best) };
  // The answer cannot carry what the labels name: the class says what it can carry, the reasons keep what was seen.
  const capped = highest(cap.max);
  return {
    name: field.spec.name,
    class: capped,
    reasons: [...(capped === 'ordinary' ? [] : reasonsOf(capped)), ...reasonsOf(best), cap.reason],
  };
}

const DIGIT_OPTION = /^\d$/;
const MIN_RUN = 4;

/**
 * Choice fields that collect a secret piece by piece: at least four single-selects whose options are
 * all single digits (a PIN, an OTP or a card number typed one digit per select, when the form asks
 * for one) or all words of one BIP-39 list (a seed phrase, whatever the form says).
 */
function choiceRuns(fields: readonly FieldSignals[], formClass: FieldClass | null): (FieldClass | null)[] {
  const out: (FieldClass | null)[] = fields.map(() => null);
  const digitRun = fields.map(
    (f) =>
      f.spec.shape.kind === 'single-select' && f.spec.shape.options.length >= 9 && f.spec.shape.options.every((o) => DIGIT_OPTION.test(o)),
  );
  if (formClass !== null && (formClass === 'credential' || formClass === 'payment') && digitRun.filter(Boolean).length >= MIN_RUN) {
    for (let i = 0; i < fields.length; i++) if (digitRun[i] && fields[i]!.signals.length === 0) out[i] = formClass;
  }
  const seedRun = fields.map((f) => f.spec.shape.kind === 'single-select' && allSeedWords(f.spec.shape.options));
  if (seedRun.filter(Boolean).length >= MIN_RUN) for (let i = 0; i < fields.length; i++) if (seedRun[i]) out[i] = 'credential';
  return out;
}

/** The form-level texts: what the whole form says it asks for. */
export interface FormTexts {
  readonly message: string | null;
  readonly title?: string | null;
  readonly description?: string | null;
}

/** Classifies every field of a form, in order. */
export function classifyFields(fields: readonly FieldSpec[], texts: FormTexts | string | null): FieldReport[] {
  const form: FormTexts = typeof texts === 'string' || texts === null ? { message: texts } : texts;
  const formReadings: TextReading[] = [];
  if (form.message !== null) formReadings.push(readText(form.message, 'message'));
  if (form.title != null) formReadings.push(readText(form.title, 'message'));
  if (form.description != null) formReadings.push(readText(form.description, 'message'));
  // Option titles are shown to the user as the form's own words: read as one text per field.
  for (const spec of fields) if (spec.optionTitles.length > 0) formReadings.push(readText(spec.optionTitles.join('\n'), 'message'));
  const formHits = formReadings.flatMap((r) => r.hits);
  const formSignals = formHits.map(fromHit);

  const all = fields.map((spec) => fieldSignals(spec));
  // A field that names nothing takes what the form asks for, when it can hold it: any secret when its
  // labels are unknown words, personal data only when they are neutral ones (`value`, `input`).
  const secretSignals = formSignals.filter((s) => s.class === 'credential' || s.class === 'payment');
  for (const field of all) {
    if (!field.unread || !isFreeEntry(field.spec.shape)) continue;
    field.signals.push(...(field.generic ? formSignals : secretSignals));
  }

  const strongPayment = all.map((f) => f.signals.some((s) => s.class === 'payment' && s.rule === 'strong'));
  const anyPaymentWords = formReadings.some((r) => r.mentionsPayment) || all.some((f) => f.readings.some((r) => r.mentionsPayment));
  // Address words in the fields (a city, a street) make a `pin code` the postal code; in the message
  // alone ("we deliver", "ships") they do not when the form is about a card or a payment ("your card
  // ships in 3 days: choose its PIN code").
  const anyAddressWords =
    all.some((f) => f.readings.some((r) => r.mentionsAddress)) || (!anyPaymentWords && formReadings.some((r) => r.mentionsAddress));
  const formContext: FormContext = { payment: anyPaymentWords, address: anyAddressWords };
  const formClass = formSignals.reduce<FieldClass | null>((best, s) => {
    const cls = resolve(s, formContext);
    return cls !== null && (best === null || RANK[cls] > RANK[best]) ? cls : best;
  }, null);
  const runs = choiceRuns(all, formClass);
  // The login of an online bank is a payment credential ("Log in to your bank": user ID, password, PIN).
  if (formSignals.some((s) => s.concept === 'bank-login')) {
    for (const field of all) {
      for (let k = 0; k < field.signals.length; k++) {
        const sig = field.signals[k]!;
        if (sig.concept !== undefined && LOGIN_CONCEPTS.has(sig.concept) && (sig.class === 'credential' || sig.class === 'personal'))
          field.signals[k] = { ...sig, class: 'payment', reason: `${sig.reason}+bank-login` };
      }
    }
  }
  return all.map((field, i) => {
    // Only a `pin code` or a `CAP` depends on address words in the field's own texts: read them only then.
    const needsAddress = !anyAddressWords && field.signals.some((s) => s.rule === 'pin-code' || s.rule === 'needs-address');
    const context: FormContext = {
      payment: anyPaymentWords || strongPayment.some((p, j) => p && j !== i),
      address: anyAddressWords || (needsAddress && addressInOwnTexts(field.spec)),
    };
    return report(field, context, runs[i] ?? null);
  });
}

/** The field's own title and description mention an address ("PIN code of your delivery area"). */
function addressInOwnTexts(spec: FieldSpec): boolean {
  const texts = [spec.title, spec.description].filter((t): t is string => t !== null);
  return texts.some((t) => readText(t, 'description').mentionsAddress);
}
