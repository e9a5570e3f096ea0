/**
 * What every output format shows, decided once: which parts of the URL are highlighted, how the
 * host line splits, which findings a user must read. The formats only differ in how they style it.
 */
import type { Finding } from '../protocol/verdict.js';
import type { UrlDisplay, UrlSegment } from '../url/types.js';

/** A run of URL text with one presentation. */
export interface Piece {
  readonly text: string;
  /** `registrable`: the highlighted domain; `host`: the rest of the host; `plain`: everything else. */
  readonly role: 'registrable' | 'host' | 'plain';
}

const HOST_KINDS: ReadonlySet<UrlSegment['kind']> = new Set(['subdomain', 'host']);

function roleOf(segment: UrlSegment): Piece['role'] {
  if (segment.highlight) return 'registrable';
  return HOST_KINDS.has(segment.kind) ? 'host' : 'plain';
}

/** Adjacent segments with the same role merged, so a highlight is one run however the engine split it. */
export function urlPieces(display: UrlDisplay): Piece[] {
  if (display.segments.length === 0) return display.full === '' ? [] : [{ text: display.full, role: 'plain' }];
  const pieces: Piece[] = [];
  for (const segment of display.segments) {
    if (segment.text === '') continue;
    const role = roleOf(segment);
    const last = pieces.at(-1);
    if (last !== undefined && last.role === role) pieces[pieces.length - 1] = { text: last.text + segment.text, role };
    else pieces.push({ text: segment.text, role });
  }
  return pieces;
}

/**
 * The host as `display.host` gives it, split so the registrable domain can be highlighted. With no
 * registrable domain (an IP literal, a bare suffix) the whole host is the highlight, as in the segments.
 */
export function hostPieces(display: UrlDisplay): Piece[] {
  const host = display.host;
  if (host === null || host === '') return [];
  const domain = display.registrableDomain;
  if (domain !== null && domain !== '' && host.length > domain.length && host.endsWith('.' + domain)) {
    return [
      { text: host.slice(0, host.length - domain.length), role: 'host' },
      { text: domain, role: 'registrable' },
    ];
  }
  return [{ text: host, role: 'registrable' }];
}

export type ShownSeverity = 'error' | 'warning';

export interface ShownFinding {
  readonly severity: ShownSeverity;
  readonly code: string;
  readonly message: string;
}

/** Errors then warnings, each group in the engine's order; `info` findings are not shown. */
export function findingsToShow(findings: readonly Finding[] | undefined): ShownFinding[] {
  if (findings === undefined) return [];
  const errors: ShownFinding[] = [];
  const warnings: ShownFinding[] = [];
  for (const f of findings) {
    switch (f.severity) {
      case 'error':
        errors.push({ severity: 'error', code: f.code, message: f.message });
        break;
      case 'warning':
        warnings.push({ severity: 'warning', code: f.code, message: f.message });
        break;
      case 'info':
        break;
      default: {
        const unreachable: never = f.severity;
        throw new Error(`unknown severity ${String(unreachable)}`);
      }
    }
  }
  return [...errors, ...warnings];
}

export const PUNYCODE_NOTE = 'shown in Punycode because its Unicode form could be mistaken for another name';
