/**
 * HTML built from templates in which every interpolated value is escaped (`escapeHtml`: entities
 * for `& < > " '`, hidden and bidi characters made visible), unless it is already `Html` made here.
 * No page builds markup by string concatenation of values.
 */
import { escapeHtml } from '../render/escape.js';

/** Markup that is safe to insert as is: only this module and `trusted` make it. */
export class Html {
  readonly #markup: string;
  constructor(markup: string) {
    this.#markup = markup;
  }
  toString(): string {
    return this.#markup;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

function piece(value: Value): string {
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return value.map(piece).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** `html\`<p>${text}</p>\``: escapes `text`, keeps nested `Html` as is. */
export function html(strings: TemplateStringsArray, ...values: readonly Value[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += piece(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Markup produced by the project's own renderer (`renderUrl(…, 'html')`), which escapes everything it is given. */
export function trusted(markup: string): Html {
  return new Html(markup);
}
