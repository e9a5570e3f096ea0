/**
 * Payment card numbers: the Luhn check (ISO/IEC 7812-1) and, for free text, the issuer ranges and
 * lengths of the card schemes, so a 13-digit millisecond timestamp that happens to pass Luhn is
 * not taken for a card.
 */

/** True when the digits pass the Luhn check. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (d < 0 || d > 9) return false;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** 13–19 digits (spaces or dashes allowed) that pass the Luhn check: for a field already about cards. */
export function looksLikeCardNumber(value: string): boolean {
  if (value.length > 32 || !/^[\d -]+$/.test(value)) return false;
  const digits = value.replace(/[ -]/g, '');
  if (digits.length < 13 || digits.length > 19 || /^(\d)\1+$/.test(digits)) return false;
  return luhnValid(digits);
}

// Issuer identification ranges and lengths (Visa, Mastercard, American Express, Discover, JCB,
// Diners Club, UnionPay, Maestro, Mir, RuPay), as the schemes publish them.
const SCHEMES: readonly { readonly prefix: RegExp; readonly lengths: readonly number[] }[] = [
  { prefix: /^4/, lengths: [13, 16, 19] },
  { prefix: /^(?:5[1-5]|222[1-9]|22[3-9]\d|2[3-6]\d\d|27[01]\d|2720)/, lengths: [16] },
  { prefix: /^3[47]/, lengths: [15] },
  { prefix: /^(?:6011|65|64[4-9])/, lengths: [16, 19] },
  { prefix: /^35(?:2[89]|[3-8]\d)/, lengths: [16, 17, 18, 19] },
  { prefix: /^3(?:0[0-5]|[689])/, lengths: [14, 16, 19] },
  { prefix: /^62/, lengths: [16, 17, 18, 19] },
  { prefix: /^(?:50|5[6-9]|6[0-9])/, lengths: [12, 13, 14, 15, 16, 17, 18, 19] },
  { prefix: /^220[0-4]/, lengths: [16, 17, 18, 19] },
];

const CANDIDATE = /(?<![\d])(?:\d[ -]?){12,18}\d(?![\d])/g;

/** A card number anywhere in a text: Luhn-valid, in a scheme's range and of its length. */
export function findCardNumber(text: string): boolean {
  if (text.length < 12) return false;
  for (const m of text.matchAll(CANDIDATE)) {
    const digits = m[0].replace(/[ -]/g, '');
    if (/^(\d)\1+$/.test(digits)) continue;
    if (!SCHEMES.some((s) => s.prefix.test(digits) && s.lengths.includes(digits.length))) continue;
    if (luhnValid(digits)) return true;
  }
  return false;
}
