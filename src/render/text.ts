/**
 * Plain text and ANSI terminal rendering: the same lines, two styles. Text is escaped before any
 * styling is added, so the only escape sequences in ANSI output are the renderer's own.
 */
import type { Finding } from '../protocol/verdict.js';
import type { UrlDisplay } from '../url/types.js';
import { escapeText } from './escape.js';
import { findingsToShow, hostPieces, PUNYCODE_NOTE, urlPieces, type Piece, type ShownSeverity } from './model.js';

interface TextStyle {
  readonly registrable: (text: string) => string;
  readonly hostRest: (text: string) => string;
  readonly marker: (severity: ShownSeverity) => string;
  readonly code: (text: string) => string;
  readonly note: (text: string) => string;
}

const ESC = '\u001b[';

const PLAIN: TextStyle = {
  registrable: (t) => `[${t}]`,
  hostRest: (t) => t,
  marker: (s) => (s === 'error' ? '[error]' : '[warning]'),
  code: (t) => t,
  note: (t) => t,
};

// Bold + underline mark the registrable domain even on terminals without colour; dim pushes the
// subdomains back so `accounts.google.com.evil.net` reads as "evil.net".
const ANSI: TextStyle = {
  registrable: (t) => `${ESC}1;4m${t}${ESC}22;24m`,
  hostRest: (t) => `${ESC}2m${t}${ESC}22m`,
  marker: (s) => (s === 'error' ? `${ESC}31;1m✖ error${ESC}0m` : `${ESC}33;1m⚠ warning${ESC}0m`),
  code: (t) => `${ESC}1m${t}${ESC}22m`,
  note: (t) => `${ESC}3m${t}${ESC}23m`,
};

function styled(pieces: readonly Piece[], style: TextStyle): string {
  let out = '';
  for (const piece of pieces) {
    const text = escapeText(piece.text);
    switch (piece.role) {
      case 'registrable':
        out += style.registrable(text);
        break;
      case 'host':
        out += style.hostRest(text);
        break;
      case 'plain':
        out += text;
        break;
      default: {
        const unreachable: never = piece.role;
        throw new Error(`unknown role ${String(unreachable)}`);
      }
    }
  }
  return out;
}

function renderText(display: UrlDisplay, style: TextStyle, findings: readonly Finding[] | undefined): string {
  const pieces = urlPieces(display);
  const lines = [pieces.length === 0 ? '(empty URL)' : styled(pieces, style)];
  const host = hostPieces(display);
  if (host.length > 0) lines.push(`host: ${styled(host, style)}`);
  for (const f of findingsToShow(findings))
    lines.push(`${style.marker(f.severity)} ${style.code(escapeText(f.code))}: ${escapeText(f.message)}`);
  if (display.punycodeShown) lines.push(style.note(PUNYCODE_NOTE));
  return lines.join('\n');
}

/** Plain text: the registrable domain in brackets (`https://accounts.[google.com]/…`). */
export function renderPlain(display: UrlDisplay, findings?: readonly Finding[]): string {
  return renderText(display, PLAIN, findings);
}

/** ANSI terminal: the registrable domain bold and underlined, the rest of the host dimmed. */
export function renderAnsi(display: UrlDisplay, findings?: readonly Finding[]): string {
  return renderText(display, ANSI, findings);
}
