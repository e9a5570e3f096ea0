/**
 * HTML rendering: every piece of text escaped, the URL isolated left-to-right with `<bdi dir="ltr">`
 * so surrounding right-to-left text cannot reorder it, the registrable domain in a `<mark>`.
 * Classes are stable (`meg-*`) so hosts can style the output; no inline styles or scripts.
 */
import type { Finding } from '../protocol/verdict.js';
import type { UrlDisplay } from '../url/types.js';
import { escapeHtml } from './escape.js';
import { findingsToShow, hostPieces, PUNYCODE_NOTE, urlPieces, type Piece } from './model.js';

function pieceHtml(piece: Piece): string {
  const text = escapeHtml(piece.text);
  switch (piece.role) {
    case 'registrable':
      return `<mark class="meg-registrable">${text}</mark>`;
    case 'host':
      return `<span class="meg-host">${text}</span>`;
    case 'plain':
      return text;
    default: {
      const unreachable: never = piece.role;
      throw new Error(`unknown role ${String(unreachable)}`);
    }
  }
}

const isolated = (pieces: readonly Piece[]): string => `<bdi dir="ltr">${pieces.map(pieceHtml).join('')}</bdi>`;

/** An HTML fragment (a `<div class="meg-url">`) safe to insert into a page as is. */
export function renderHtml(display: UrlDisplay, findings?: readonly Finding[]): string {
  const parts = ['<div class="meg-url" dir="ltr">'];
  const pieces = urlPieces(display);
  parts.push(`<p class="meg-url-full">${pieces.length === 0 ? '(empty URL)' : isolated(pieces)}</p>`);
  const host = hostPieces(display);
  if (host.length > 0) parts.push(`<p class="meg-url-host">host: ${isolated(host)}</p>`);
  const shown = findingsToShow(findings);
  if (shown.length > 0) {
    parts.push('<ul class="meg-findings">');
    for (const f of shown) {
      const marker = f.severity === 'error' ? '✖' : '⚠';
      parts.push(
        `<li class="meg-finding meg-finding-${f.severity}"><span class="meg-marker" role="img" ` +
          `aria-label="${f.severity}">${marker}</span> <code class="meg-code">${escapeHtml(f.code)}</code> ${escapeHtml(f.message)}</li>`,
      );
    }
    parts.push('</ul>');
  }
  if (display.punycodeShown) parts.push(`<p class="meg-punycode">${escapeHtml(PUNYCODE_NOTE)}</p>`);
  parts.push('</div>');
  return parts.join('\n');
}
