/**
 * Escaping for every output the renderer produces. Anything that a URL, a host or a finding
 * message carries is attacker-influenced: a raw ESC can rewrite a terminal, a raw RLO can reverse
 * what a user reads, a raw `<` can inject markup. Each such character becomes a visible escape.
 */

// Every "Other" character (controls, format/bidi controls, surrogates, private use, unassigned),
// every separator except the plain space, and every default-ignorable code point (zero-width
// characters, variation selectors, Hangul fillers): none of them should reach a reader unseen.
const HIDDEN = /[\p{C}\p{Z}\p{Default_Ignorable_Code_Point}]/gu;
const HIDDEN_OR_HTML = /[&<>"']|[\p{C}\p{Z}\p{Default_Ignorable_Code_Point}]/gu;

const HTML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The visible form of one hidden character: `\u{1B}`, `\u{202E}`. */
export function codePointEscape(ch: string): string {
  return `\\u{${ch.codePointAt(0)!.toString(16).toUpperCase()}}`;
}

/** True when the text holds a character that `escapeText` would replace. */
export function hasHiddenCharacters(text: string): boolean {
  for (const match of text.matchAll(HIDDEN)) if (match[0] !== ' ') return true;
  return false;
}

/**
 * Makes text safe for a terminal or a plain-text log: control, bidi and invisible characters
 * become `\u{…}` escapes; the plain space stays.
 * @example escapeText('a\u001b[2Jb') === 'a\\u{1B}[2Jb'
 */
export function escapeText(text: string): string {
  return text.replace(HIDDEN, (ch) => (ch === ' ' ? ch : codePointEscape(ch)));
}

/**
 * Makes text safe as HTML element content or a quoted attribute value: `& < > " '` become
 * entities and hidden characters become `\u{…}` escapes wrapped in `<span class="meg-hidden">`.
 */
export function escapeHtml(text: string): string {
  return text.replace(HIDDEN_OR_HTML, (ch) => {
    const entity = HTML_ENTITIES[ch];
    if (entity !== undefined) return entity;
    if (ch === ' ') return ch;
    return `<span class="meg-hidden">${codePointEscape(ch)}</span>`;
  });
}
