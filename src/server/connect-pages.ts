/**
 * The few HTML pages the connect handler shows a browser. Every interpolated string is a fixed
 * text of ours, escaped anyway; nothing from the request or the provider is echoed back.
 */
import { escapeHtml } from '../render/escape.js';

export function page(title: string, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">',
    `<title>${escapeHtml(title)}</title></head>`,
    `<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(body)}</p></body></html>`,
    '',
  ].join('\n');
}
