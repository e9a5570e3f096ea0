import type { Finding } from '../protocol/verdict.js';
import type { UrlDisplay } from '../url/types.js';
import { renderHtml } from './html.js';
import { renderAnsi, renderPlain } from './text.js';

export type RenderFormat = 'plain' | 'ansi' | 'html';

/**
 * Renders a URL display model for a user: the full URL (never truncated) with the registrable
 * domain highlighted, the host as `display.host` gives it, the error and warning findings with a
 * marker, and a note when the host is shown in Punycode. All input text is escaped for the format.
 * @example renderUrl(analyzeUrl(url, policy).display, 'plain', findings) // "https://accounts.[google.com]/o/oauth2/…"
 */
export function renderUrl(display: UrlDisplay, format: RenderFormat, findings?: readonly Finding[]): string {
  switch (format) {
    case 'plain':
      return renderPlain(display, findings);
    case 'ansi':
      return renderAnsi(display, findings);
    case 'html':
      return renderHtml(display, findings);
    default: {
      const unreachable: never = format;
      throw new TypeError(`unknown render format ${JSON.stringify(unreachable)}`);
    }
  }
}

export { escapeHtml, escapeText, hasHiddenCharacters } from './escape.js';
