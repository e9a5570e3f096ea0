/**
 * Personal and payment data in a URL (the MCP spec forbids end-user PII in URL-mode elicitation
 * URLs): e-mail addresses (also `%40`-encoded, quoted, `(at)`-obfuscated or base64-encoded),
 * phone numbers in E.164 or common national formats, identity numbers, birth dates, addresses
 * and locations under their usual parameter names, card numbers (issuer prefix and Luhn), IBANs
 * (mod 97) and bank account numbers.
 *
 * Plain digit strings are IDs far more often than phone or card numbers, so without a `+`,
 * separators, a checksum or a telling parameter name they pass.
 */
import { parse } from 'tldts';
import type { NamedPersonalKind, PersonalNameRules, UrlPart } from './parts.js';

export type PersonalKind = 'email' | 'phone' | 'identity' | 'birth-date' | 'ip-address' | 'location' | 'postal-address';
export type PaymentKind = 'card' | 'iban' | 'bank-account' | 'card-code';

export type PersonalHit =
  | { readonly part: UrlPart; readonly kind: PersonalKind; readonly payment: false }
  | { readonly part: UrlPart; readonly kind: PaymentKind; readonly payment: true };

const EMAIL =
  /(?:"[^"\r\n]{1,64}"|[A-Za-z0-9._%+-]{1,64})(?:@|\s?[([]at[)\]]\s?)((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63})(?![A-Za-z0-9-])/gi;
const EMAIL_HINT = /@|[([]at[)\]]/i;
const HINT_CHARACTER = /[@([]/;
const ICANN = { allowPrivateDomains: false, extractHostname: false, detectIp: false, validateHostname: false } as const;
/** Reserved names (RFC 2606, RFC 6761) that test and internal addresses use. */
const RESERVED_TLDS = new Set(['example', 'test', 'invalid', 'localhost', 'local', 'internal']);

const EMAIL_NAMES = new Set(['email', 'emailaddress', 'mail', 'useremail', 'mailaddress', 'loginhint', 'username', 'user', 'login']);
const PHONE_NAMES = new Set([
  'phone',
  'phonenumber',
  'phoneno',
  'tel',
  'telephone',
  'mobile',
  'mobilenumber',
  'mobilephone',
  'msisdn',
  'cell',
  'cellphone',
  'whatsapp',
  'sms',
  'fax',
]);
const IDENTITY_NAMES = new Set([
  'ssn',
  'socialsecuritynumber',
  'nationalid',
  'nationalidnumber',
  'nationalidentifier',
  'nino',
  'nin',
  'tin',
  'taxid',
  'taxpayerid',
  'taxnumber',
  'passport',
  'passportnumber',
  'passportno',
  'driverslicense',
  'driverlicense',
  'licensenumber',
  'idnumber',
  'idcard',
  'personalnumber',
  'personnummer',
  'cpf',
  'aadhaar',
  'pesel',
  'dni',
  'nie',
  'nif',
  'curp',
  'steuerid',
  'sozialversicherungsnummer',
]);
const BIRTH_NAMES = new Set(['dob', 'dateofbirth', 'birthdate', 'birthday', 'bday', 'geburtsdatum']);
const IP_NAMES = new Set(['ip', 'ipaddress', 'ipaddr', 'clientip', 'userip', 'remoteip']);
const LOCATION_NAMES = new Set(['geo', 'latlng', 'latlon', 'location', 'coords', 'coordinates', 'position', 'gps']);
/** The name lists above are disjoint, so one lookup tells which value check a name calls for. */
const NAMED_KINDS: ReadonlyMap<string, NamedPersonalKind> = new Map([
  ...Array.from(EMAIL_NAMES, (name) => [name, 'email'] as const),
  ...Array.from(IDENTITY_NAMES, (name) => [name, 'identity'] as const),
  ...Array.from(BIRTH_NAMES, (name) => [name, 'birth-date'] as const),
  ...Array.from(IP_NAMES, (name) => [name, 'ip-address'] as const),
  ...Array.from(LOCATION_NAMES, (name) => [name, 'location'] as const),
]);
if (NAMED_KINDS.size !== EMAIL_NAMES.size + IDENTITY_NAMES.size + BIRTH_NAMES.size + IP_NAMES.size + LOCATION_NAMES.size) {
  throw new Error('personal.ts: a parameter name is in two name lists');
}
const CARD_NAMES = new Set(['card', 'cardnumber', 'cardno', 'cc', 'ccnumber', 'ccnum', 'pan', 'creditcard', 'creditcardnumber']);
const CARD_CODE_NAMES = new Set(['cvc', 'cvv', 'cvv2', 'cvc2', 'csc', 'securitycode', 'cardcode']);
const BANK_NAMES = new Set([
  'iban',
  'accountnumber',
  'bankaccount',
  'bankaccountnumber',
  'acctnumber',
  'accountno',
  'routingnumber',
  'aba',
  'sortcode',
  'bsb',
]);

// `+` and a country code, then 7 to 14 more digits with optional separators.
const E164 = /(?<![\w+])\+[1-9](?:[\s.()-]{0,2}\d){7,14}(?![\w])/;
// North American: (415) 555-2671, 415-555-2671, 415.555.2671 (separators required).
const NANP = /(?<![\w.-])\(?[2-9]\d{2}\)?[\s.-]\d{3}[\s.-]\d{4}(?![\w.-])/;
// Trunk-prefix national numbers grouped by spaces or hyphens: 06 12 34 56 78, 020 7946 0958.
const NATIONAL = /(?<![\w.-])0\d{1,4}(?:[\s-]\d{2,4}){2,4}(?![\w.-])/;
const PHONE_VALUE = /^[\s+().-]*(?:\d[\s().-]*){7,15}$/;
const IP_VALUE = /^(?:\d{1,3}\.){3}\d{1,3}$|^[0-9a-f:]*:[0-9a-f:]+$/i;
const COORDINATES = /-?\d{1,3}\.\d{3,}\s*,\s*-?\d{1,3}\.\d{3,}/;
const CARD_CANDIDATE = /^(?:\d[ -]?){12,18}\d$/;
const CARD_GROUPED = /^\d{4}([ -])\d{4}\1\d{4}\1\d{1,7}$|^\d{4}([ -])\d{6}\2\d{5}$/;
const IBAN = /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/;

function digitCount(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) n++;
  }
  return n;
}

function emailDomainOk(domain: string): boolean {
  const lower = domain.toLowerCase();
  const tld = lower.slice(lower.lastIndexOf('.') + 1);
  if (RESERVED_TLDS.has(tld)) return true;
  const parsed = parse(lower, ICANN);
  return parsed.isIcann === true && parsed.domain !== null;
}

function hasEmail(value: string, hints = 1): boolean {
  // Every value passes here: without an `@`, `(` or `[` there is no hint to look for.
  if (hints === 0 || !HINT_CHARACTER.test(value) || !EMAIL_HINT.test(value)) return false;
  EMAIL.lastIndex = 0;
  for (const m of value.matchAll(EMAIL)) if (emailDomainOk(m[1]!)) return true;
  return false;
}

/** An e-mail address hidden in base64 (`u=b3BzLXRlYW1AY29ycC5leGFtcGxl`). */
function hasEncodedEmail(value: string): boolean {
  // Base64 of an address needs 16 characters: most values are shorter and skip the scan.
  if (value.length < 16 || !base64MayHoldEmail(value)) return false;
  let decoded: string;
  try {
    const b64 = value.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
    decoded = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  } catch {
    return false;
  }
  return /^[\x20-\x7e]+$/.test(decoded) && hasEmail(decoded);
}

/**
 * False when `value` is not base64 (`/^[A-Za-z0-9+/_-]{16,1024}={0,2}$/`), or cannot decode, or decodes to something that
 * is not printable ASCII with an `@`, `(` or `[` in it: what `hasEncodedEmail` goes on to require,
 * read in one pass without building the decoded string. `atob` rejects a length of 1 modulo 4
 * and drops the bits left over at the end; so does this.
 */
function base64MayHoldEmail(value: string): boolean {
  let end = value.length;
  while (end > 0 && value.charCodeAt(end - 1) === 0x3d) end--;
  if (value.length - end > 2 || end < 16 || end > 1024 || end % 4 === 1) return false;
  let buffer = 0;
  let bits = 0;
  let hint = false;
  for (let i = 0; i < end; i++) {
    const c = value.charCodeAt(i);
    if (!isBase64Character(c)) return false;
    buffer = ((buffer << 6) | sextet(c)) & 0xffff;
    bits += 6;
    if (bits < 8) continue;
    bits -= 8;
    const byte = (buffer >>> bits) & 0xff;
    if (byte < 0x20 || byte > 0x7e) return false;
    if (byte === 0x40 || byte === 0x28 || byte === 0x5b) hint = true;
  }
  return hint;
}

/** A character of the base64 and base64url alphabets (`[A-Za-z0-9+/_-]`). */
function isBase64Character(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f || c === 0x5f || c === 0x2d
  );
}

/** The value of a base64 or base64url character. */
function sextet(c: number): number {
  if (c >= 0x61) return c - 0x61 + 26;
  if (c >= 0x41) return c === 0x5f ? 63 : c - 0x41;
  if (c >= 0x30) return c - 0x30 + 52;
  return c === 0x2b || c === 0x2d ? 62 : 63;
}

/**
 * What the value rules ask of a value's characters, counted in one pass: most values are ids and
 * nonces, and these counts tell that a pattern cannot match before it runs.
 */
interface Census {
  digits: number;
  /** `@`, `(` or `[`: what an e-mail address needs (`HINT_CHARACTER`). */
  hints: number;
  plus: number;
  zeros: number;
  /** `[\s.-]` (ASCII blanks): the separators of a North American number. */
  separators: number;
  /** `[\s-]` (ASCII blanks): the separators of a national number. */
  spacesOrDashes: number;
  /** Code units above ASCII (where `\s` reaches further). */
  wide: number;
}

/** The one census `findPersonalData` fills for each part in turn (it reads it before the next). */
const CENSUS: Census = { digits: 0, hints: 0, plus: 0, zeros: 0, separators: 0, spacesOrDashes: 0, wide: 0 };

// What each ASCII character counts for in a census (0: nothing, as for most characters).
const DIGIT = 1;
const ZERO = 2;
const HINT = 3;
const PLUS = 4;
const BLANK_OR_DASH = 5;
const PERIOD = 6;
/**
 * The census classes by ASCII code. A census of an ASCII value read elsewhere (the secret screen,
 * `findCredentials`) is stored as the count of each class, `CENSUS_STRIDE` numbers a part, with
 * a 1 at `CENSUS_COUNTED` once stored.
 */
export const CENSUS_CLASS = new Uint8Array(128);
export const CENSUS_COUNTED = 7;
export const CENSUS_STRIDE = 8;
for (let c = 0x31; c <= 0x39; c++) CENSUS_CLASS[c] = DIGIT;
CENSUS_CLASS[0x30] = ZERO;
for (const c of [0x40, 0x28, 0x5b]) CENSUS_CLASS[c] = HINT;
CENSUS_CLASS[0x2b] = PLUS;
for (const c of [0x2d, 0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d]) CENSUS_CLASS[c] = BLANK_OR_DASH;
CENSUS_CLASS[0x2e] = PERIOD;

/** The census of an ASCII value stored at `at` of `counts` (`CENSUS_CLASS`). */
function storedCensus(counts: Int32Array, at: number): Census {
  const census = CENSUS;
  census.digits = counts[at + DIGIT]! + counts[at + ZERO]!;
  census.zeros = counts[at + ZERO]!;
  census.hints = counts[at + HINT]!;
  census.plus = counts[at + PLUS]!;
  census.separators = counts[at + BLANK_OR_DASH]! + counts[at + PERIOD]!;
  census.spacesOrDashes = counts[at + BLANK_OR_DASH]!;
  census.wide = 0;
  return census;
}

function censusOf(text: string): Census {
  let digits = 0;
  let zeros = 0;
  let hints = 0;
  let plus = 0;
  let blanksOrDashes = 0;
  let periods = 0;
  let wide = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) {
      wide++;
      continue;
    }
    switch (CENSUS_CLASS[c]) {
      case 0:
        break;
      case DIGIT:
        digits++;
        break;
      case ZERO:
        zeros++;
        break;
      case HINT:
        hints++;
        break;
      case PLUS:
        plus++;
        break;
      case BLANK_OR_DASH:
        blanksOrDashes++;
        break;
      case PERIOD:
        periods++;
        break;
    }
  }
  const census = CENSUS;
  census.digits = digits + zeros;
  census.zeros = zeros;
  census.hints = hints;
  census.plus = plus;
  census.separators = blanksOrDashes + periods;
  census.spacesOrDashes = blanksOrDashes;
  census.wide = wide;
  return census;
}

/**
 * A phone number in the part's `literal`, whose digits, `0`s and `@([` are those of `value`
 * (`census`), and whose `+` and blanks are at most those of `value` plus the `+` a form encoding
 * turned into spaces (then `literal` is another string than `value`).
 */
function hasPhone(part: UrlPart, name: PersonalNameRules, census: Census): boolean {
  const text = part.literal;
  if (text.length < 7 || census.digits < 7) return false;
  if (name.phone && PHONE_VALUE.test(part.value)) return true;
  // `E164` needs a `+` and eight digits.
  if (census.digits >= 8 && (census.plus > 0 || text !== part.value)) {
    const e164 = E164.exec(text);
    if (e164 !== null && digitCount(e164[0]) >= 8) return true;
  }
  const wide = census.wide > 0;
  // `NANP` needs two separators and ten digits; `NATIONAL` a `0`, two blanks or dashes and nine digits.
  if ((wide || census.separators >= 2) && census.digits >= 10 && NANP.test(text)) return true;
  if (!wide && (census.spacesOrDashes < 2 || census.zeros === 0 || census.digits < 9)) return false;
  const national = NATIONAL.exec(text);
  return national !== null && digitCount(national[0]) >= 9;
}

function luhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 0x30;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Issuer prefixes of the major card networks (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay). */
function cardIssuer(digits: string): boolean {
  const two = Number(digits.slice(0, 2));
  const four = Number(digits.slice(0, 4));
  return (
    digits[0] === '4' ||
    (two >= 51 && two <= 55) ||
    (four >= 2221 && four <= 2720) ||
    two === 34 ||
    two === 37 ||
    four === 6011 ||
    two === 65 ||
    two === 35 ||
    two === 36 ||
    two === 38 ||
    two === 62 ||
    (four >= 3000 && four <= 3059)
  );
}

function isCardNumber(value: string): boolean {
  if (!CARD_CANDIDATE.test(value)) return false;
  const digits = value.replace(/[ -]/g, '');
  return digits.length >= 13 && digits.length <= 19 && cardIssuer(digits) && luhn(digits);
}

function isIban(value: string): boolean {
  if (value.length < 15 || !mayStartIban(value)) return false;
  const compact = value.replace(/\s/g, '').toUpperCase();
  if (!IBAN.test(compact)) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const n = ch >= 'A' ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    remainder = n >= 10 ? (remainder * 100 + n) % 97 : (remainder * 10 + n) % 97;
  }
  return remainder === 1;
}

/**
 * False when an ASCII value cannot start like an IBAN once blanks are dropped and letters
 * upper-cased (two letters, two digits); other text is left to `isIban` itself, since
 * `toUpperCase` and `\s` reach beyond ASCII.
 */
function mayStartIban(value: string): boolean {
  let seen = 0;
  for (let i = 0; i < value.length && seen < 4; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0x80) return true;
    if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) continue;
    const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
    const digit = c >= 0x30 && c <= 0x39;
    if (seen < 2 ? !letter : !digit) return false;
    seen++;
  }
  return true;
}

/**
 * `census` counts `part.value`, whose digits trimming keeps: a card number needs 13 digits
 * (`CARD_CANDIDATE`, and `CARD_GROUPED` 13 too), a card code 3, a bank account 6, an IBAN 2.
 */
function payment(part: UrlPart, name: PersonalNameRules, census: Census): PaymentKind | null {
  if (census.digits < 2 || (part.where === 'path' && part.name === null)) return null;
  const value =
    part.value.length > 0 && (part.value.charCodeAt(0) <= 0x20 || part.value.charCodeAt(part.value.length - 1) <= 0x20)
      ? part.value.trim()
      : part.value;
  if (value.length < 3) return null;
  // A bare run of digits is an id far more often than a card: only a card-like name or
  // card-style grouping (`4242 4242 4242 4242`) makes it a card number.
  if (census.digits >= 13 && (name.card || CARD_GROUPED.test(value)) && isCardNumber(value)) return 'card';
  if (name.cardCode && /^\d{3,4}$/.test(value)) return 'card-code';
  if (isIban(value)) return 'iban';
  if (name.bank && census.digits >= 6) return 'bank-account';
  return null;
}

// Parameter names of a postal address (street and house number) in the languages of the web;
// names of other "addresses" (e-mail, IP, MAC, wallets, web pages) are not postal.
const ADDRESS_NAME =
  /(?:address|addr\d?|street|strasse|strase|adresse|adres|direccion|indirizzo|straat|endereco|calle|rue|ulica|adresa|osoite|gatuadress)(?:line)?\d?$|^(?:address|addr|street|strasse|adresse|direccion|indirizzo|straat|endereco)/;
const NOT_POSTAL =
  /email|mail|^ip|ipaddr|ipaddress|mac|wallet|web|url|btc|eth|contract|server|host|bitcoin|node|link|site|hex|memory|bluetooth|ens|deposit|token|ldap|dns|remote|from$|proxy/;
// A street address: a house number and a street word (`1600 Amphitheatre Parkway`, `Damrak 1`,
// `221B Baker Street`), as one line of text.
const STREET_VALUE = /(?:^|[\s,])\d{1,6}[A-Za-z]?(?:[\s,]|$)/;
const LETTER_WORD = /\p{L}{3,}/u;

function isPostalAddress(part: UrlPart, name: PersonalNameRules): boolean {
  if (!name.postal) return false;
  const value = part.value.trim();
  return value.length >= 5 && value.length <= 200 && STREET_VALUE.test(value) && LETTER_WORD.test(value);
}

/**
 * What the personal-data and payment rules' name lists say about a parameter name: read once per
 * name by the content gate (`gate.ts`), which keeps it with the name (`UrlPart.facts`).
 */
export function nameRules(key: string): PersonalNameRules {
  return {
    postal: key.length >= 3 && ADDRESS_NAME.test(key) && !NOT_POSTAL.test(key),
    kind: key === '' ? undefined : NAMED_KINDS.get(key),
    phone: PHONE_NAMES.has(key),
    card: CARD_NAMES.has(key),
    cardCode: CARD_CODE_NAMES.has(key),
    bank: BANK_NAMES.has(key),
  };
}

/**
 * True when the personal or payment rules read a parameter by its name (`content.ts`'s gate), from
 * what `nameRules` read of it (every `ADDRESS_NAME` match is three characters or more).
 */
export function readsByName(rules: PersonalNameRules): boolean {
  return rules.postal || rules.kind !== undefined || rules.phone || rules.card || rules.cardCode || rules.bank;
}

function personal(part: UrlPart, name: PersonalNameRules, census: Census): PersonalKind | null {
  const value = part.value;
  if (hasEmail(value, census.hints)) return 'email';
  if (part.name !== null && isPostalAddress(part, name)) return 'postal-address';
  switch (name.kind) {
    case 'email':
      if (/.@./.test(value)) return 'email';
      break;
    case 'identity':
      if (/[0-9]/.test(value) && value.replace(/[^A-Za-z0-9]/g, '').length >= 4) return 'identity';
      break;
    case 'birth-date':
      if (census.digits >= 4) return 'birth-date';
      break;
    case 'ip-address':
      if (IP_VALUE.test(value.trim())) return 'ip-address';
      break;
    case 'location':
      if (COORDINATES.test(value)) return 'location';
      break;
    case undefined:
      break;
  }
  if (hasPhone(part, name, census)) return 'phone';
  if (hasEncodedEmail(value)) return 'email';
  return null;
}

/**
 * The parts of a URL that hold personal or payment data. `counts` holds, by part, the census of
 * the values another pass already counted (`CENSUS_STRIDE`).
 */
export function findPersonalData(parts: readonly UrlPart[], counts: Int32Array | null = null): PersonalHit[] {
  const hits: PersonalHit[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const name = part.facts.personal;
    const at = i * CENSUS_STRIDE;
    const census = counts !== null && counts[at + CENSUS_COUNTED] === 1 ? storedCensus(counts, at) : censusOf(part.value);
    const pay = payment(part, name, census);
    if (pay !== null) {
      hits.push({ part, kind: pay, payment: true });
      continue;
    }
    const kind = personal(part, name, census);
    if (kind !== null) hits.push({ part, kind, payment: false });
  }
  return hits;
}
