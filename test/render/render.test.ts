import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/protocol/verdict.js';
import { renderUrl, type RenderFormat } from '../../src/render/index.js';
import type { UrlDisplay, UrlSegment } from '../../src/url/types.js';

type Kind = UrlSegment['kind'];

/** A display model built by hand, so these tests do not depend on the URL engine. */
function display(parts: ReadonlyArray<readonly [Kind, string, boolean?]>, extra: Partial<UrlDisplay> = {}): UrlDisplay {
  const segments = parts.map(([kind, text, highlight]) => ({ kind, text, highlight: highlight === true }));
  const hostText = segments
    .filter((s) => ['subdomain', 'registrable', 'host'].includes(s.kind))
    .map((s) => s.text)
    .join('');
  const registrable = segments.find((s) => s.kind === 'registrable')?.text ?? null;
  return {
    full: segments.map((s) => s.text).join(''),
    segments,
    scheme: segments.find((s) => s.kind === 'scheme')?.text ?? null,
    host: hostText === '' ? null : hostText,
    hostUnicode: hostText === '' ? null : hostText,
    hostAscii: hostText === '' ? null : hostText,
    registrableDomain: registrable,
    punycodeShown: false,
    ...extra,
  };
}

const google = display([
  ['scheme', 'https'],
  ['separator', '://'],
  ['subdomain', 'accounts.'],
  ['registrable', 'google.com', true],
  ['path', '/o/oauth2/v2/auth'],
  ['query', '?client_id=abc&scope=openid%20email'],
]);

const embedded = display([
  ['scheme', 'https'],
  ['separator', '://'],
  ['subdomain', 'paypal.com.'],
  ['registrable', 'evil.net', true],
  ['path', '/signin'],
]);

const findings: Finding[] = [
  { code: 'URL_BRAND_IN_SUBDOMAIN', severity: 'warning', message: 'paypal.com appears as a subdomain of evil.net' },
  { code: 'URL_REDIRECT_LOOPBACK', severity: 'info', message: 'redirect to loopback' },
  { code: 'URL_LOOKALIKE_EMBEDDED', severity: 'error', message: 'paypal.com is embedded in a host of evil.net' },
];

const SGR = /\u001b\[[0-9;]*m/g;
// What must never reach a terminal raw: every control, format, separator and default-ignorable
// character except the line breaks the renderer itself puts between lines and the plain space.
const UNSAFE_IN_TEXT = /[\p{C}\p{Z}\p{Default_Ignorable_Code_Point}]/u;
const unsafeLeft = (text: string): string[] => [...text].filter((ch) => ch !== '\n' && ch !== ' ' && UNSAFE_IN_TEXT.test(ch));
const KNOWN_TAGS = /<\/?(?:div|p|bdi|mark|span|ul|li|code)(?: [a-z-]+="[a-z0-9 -]*")*>/g;

describe('renderUrl plain', () => {
  it('brackets the registrable domain in the URL line and the host line', () => {
    const out = renderUrl(google, 'plain');
    expect(out.split('\n')).toEqual([
      'https://accounts.[google.com]/o/oauth2/v2/auth?client_id=abc&scope=openid%20email',
      'host: accounts.[google.com]',
    ]);
  });

  it('brackets the real registrable domain of a brand-embedding host, not the brand', () => {
    const out = renderUrl(embedded, 'plain');
    expect(out).toContain('https://paypal.com.[evil.net]/signin');
    expect(out).toContain('host: paypal.com.[evil.net]');
  });

  it('merges adjacent highlighted segments into one bracket', () => {
    const d = display([
      ['scheme', 'https'],
      ['separator', '://'],
      ['subdomain', 'www.'],
      ['registrable', 'example', true],
      ['registrable', '.co.uk', true],
    ]);
    expect(renderUrl(d, 'plain').split('\n')[0]).toBe('https://www.[example.co.uk]');
  });

  it('highlights the whole host when there is no registrable domain', () => {
    const d = display([
      ['scheme', 'https'],
      ['separator', '://'],
      ['host', '192.168.1.1', true],
      ['path', '/'],
    ]);
    expect(renderUrl(d, 'plain').split('\n')).toEqual(['https://[192.168.1.1]/', 'host: [192.168.1.1]']);
  });

  it('shows the host in the form display.host gives, not the Unicode form', () => {
    const d = display(
      [
        ['scheme', 'https'],
        ['separator', '://'],
        ['registrable', 'xn--80ak6aa92e.com', true],
        ['path', '/'],
      ],
      { hostUnicode: 'аррӏе.com', punycodeShown: true },
    );
    const out = renderUrl(d, 'plain');
    expect(out).toContain('host: [xn--80ak6aa92e.com]');
    expect(out).not.toContain('аррӏе');
    expect(out.split('\n').at(-1)).toMatch(/^shown in Punycode because /);
  });

  it('has no Punycode note when the host is shown in Unicode', () => {
    expect(renderUrl(google, 'plain')).not.toContain('Punycode');
  });

  it('lists errors before warnings with markers and leaves info findings out', () => {
    const lines = renderUrl(embedded, 'plain', findings).split('\n');
    expect(lines.slice(2)).toEqual([
      '[error] URL_LOOKALIKE_EMBEDDED: paypal.com is embedded in a host of evil.net',
      '[warning] URL_BRAND_IN_SUBDOMAIN: paypal.com appears as a subdomain of evil.net',
    ]);
    expect(lines.join('\n')).not.toContain('URL_REDIRECT_LOOPBACK');
  });

  it('never truncates: a very long URL keeps its whole host and every character', () => {
    const longHost = `${'sub.'.repeat(40)}`;
    const longPath = '/' + 'a'.repeat(6000);
    const d = display([
      ['scheme', 'https'],
      ['separator', '://'],
      ['subdomain', longHost],
      ['registrable', 'example.com', true],
      ['path', longPath],
    ]);
    const first = renderUrl(d, 'plain').split('\n')[0]!;
    expect(first).toBe(`https://${longHost}[example.com]${longPath}`);
  });

  it('renders an empty display without throwing', () => {
    const d = display([]);
    expect(renderUrl(d, 'plain')).toBe('(empty URL)');
  });

  it('falls back to display.full when there are no segments', () => {
    const d = { ...display([]), full: 'javascript:alert(1)' };
    expect(renderUrl(d, 'plain')).toBe('javascript:alert(1)');
  });
});

describe('renderUrl escaping in plain and ANSI output', () => {
  const hostile = display([
    ['scheme', 'https'],
    ['separator', '://'],
    ['registrable', 'example.com', true],
    ['path', '/\u001b[2J\u001b[1;1Hhttps://paypal.com'],
    ['query', '?x=\u001b]8;;https://evil.net\u0007paypal\u001b]8;;\u0007'],
    ['fragment', '#\u202egnp.exe\u200b\u0008\u009b'],
  ]);

  it('escapes ESC, OSC 8, BEL, backspace, C1 CSI, RLO and zero-width characters as \\u{…}', () => {
    const out = renderUrl(hostile, 'plain');
    expect(out).toContain('/\\u{1B}[2J\\u{1B}[1;1Hhttps://paypal.com');
    expect(out).toContain('\\u{1B}]8;;https://evil.net\\u{7}paypal');
    expect(out).toContain('#\\u{202E}gnp.exe\\u{200B}\\u{8}\\u{9B}');
    expect(unsafeLeft(out)).toEqual([]);
  });

  it('keeps only its own SGR sequences in ANSI output', () => {
    const out = renderUrl(hostile, 'ansi', [{ code: 'URL_CONTROL_CHARACTER', severity: 'error', message: 'control \u001b[31m in path' }]);
    const withoutStyling = out.replace(SGR, '');
    expect(unsafeLeft(withoutStyling)).toEqual([]);
    expect(out).toContain('control \\u{1B}[31m in path');
  });

  it('escapes hostile text in finding codes and messages', () => {
    const out = renderUrl(google, 'plain', [{ code: 'X\u202e', severity: 'warning', message: 'line1\nline2\r\u2028' }]);
    expect(out.split('\n').at(-1)).toBe('[warning] X\\u{202E}: line1\\u{A}line2\\u{D}\\u{2028}');
  });

  it('escapes a lone surrogate instead of letting it turn into U+FFFD', () => {
    const d = display([
      ['scheme', 'https'],
      ['separator', '://'],
      ['registrable', 'example.com', true],
      ['path', '/\ud800x'],
    ]);
    expect(renderUrl(d, 'plain')).toContain('/\\u{D800}x');
  });

  it('never lets a control, bidi or invisible character through, whatever the input (property)', () => {
    const anyText = fc
      .array(fc.integer({ min: 0, max: 0x10ffff }), { maxLength: 40 })
      .map((cps) => cps.map((cp) => (cp >= 0xd800 && cp <= 0xdfff ? String.fromCharCode(cp) : String.fromCodePoint(cp))).join(''));
    fc.assert(
      fc.property(anyText, anyText, anyText, fc.boolean(), (sub, path, message, puny) => {
        const d = display(
          [
            ['scheme', 'https'],
            ['separator', '://'],
            ['subdomain', sub],
            ['registrable', 'example.com', true],
            ['path', path],
          ],
          { punycodeShown: puny },
        );
        const f: Finding[] = [{ code: 'URL_X', severity: 'error', message }];
        const plain = renderUrl(d, 'plain', f);
        const ansi = renderUrl(d, 'ansi', f).replace(SGR, '');
        return unsafeLeft(plain).length === 0 && unsafeLeft(ansi).length === 0 && plain.includes('[example.com]');
      }),
      { numRuns: 300 },
    );
  });
});

describe('renderUrl ANSI', () => {
  it('bolds and underlines the registrable domain and dims the rest of the host', () => {
    const first = renderUrl(google, 'ansi').split('\n')[0]!;
    expect(first).toBe(
      'https://\u001b[2maccounts.\u001b[22m\u001b[1;4mgoogle.com\u001b[22;24m/o/oauth2/v2/auth?client_id=abc&scope=openid%20email',
    );
  });

  it('styles the host line the same way', () => {
    expect(renderUrl(embedded, 'ansi').split('\n')[1]).toBe('host: \u001b[2mpaypal.com.\u001b[22m\u001b[1;4mevil.net\u001b[22;24m');
  });

  it('marks errors and warnings with distinct markers', () => {
    const lines = renderUrl(embedded, 'ansi', findings)
      .split('\n')
      .map((l) => l.replace(SGR, ''));
    expect(lines[2]).toBe('✖ error URL_LOOKALIKE_EMBEDDED: paypal.com is embedded in a host of evil.net');
    expect(lines[3]).toBe('⚠ warning URL_BRAND_IN_SUBDOMAIN: paypal.com appears as a subdomain of evil.net');
  });
});

describe('renderUrl HTML', () => {
  it('isolates the URL left-to-right and marks the registrable domain', () => {
    const out = renderUrl(google, 'html');
    expect(out).toContain(
      '<p class="meg-url-full"><bdi dir="ltr">https://<span class="meg-host">accounts.</span><mark ' +
        'class="meg-registrable">google.com</mark>/o/oauth2/v2/auth?client_id=abc&amp;scope=openid%20email</bdi></p>',
    );
    expect(out).toContain(
      '<p class="meg-url-host">host: <bdi dir="ltr"><span class="meg-host">accounts.</span><mark ' +
        'class="meg-registrable">google.com</mark></bdi></p>',
    );
    expect(out.startsWith('<div class="meg-url" dir="ltr">')).toBe(true);
    expect(out.endsWith('</div>')).toBe(true);
  });

  it('escapes markup, quotes and ampersands from every part of the URL', () => {
    const d = display([
      ['scheme', 'https'],
      ['separator', '://'],
      ['registrable', 'example.com', true],
      ['path', '/<script>alert(1)</script>'],
      ['query', `?a="x"&b='y'`],
      ['fragment', '#<img src=x onerror=alert(1)>'],
    ]);
    const out = renderUrl(d, 'html');
    expect(out).toContain('/&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(out).toContain('?a=&quot;x&quot;&amp;b=&#39;y&#39;');
    expect(out).toContain('#&lt;img src=x onerror=alert(1)&gt;');
    expect(out).not.toMatch(/<script|<img/);
  });

  it('turns bidi and invisible characters into visible escapes', () => {
    const d = display([
      ['scheme', 'https'],
      ['separator', '://'],
      ['registrable', 'example.com', true],
      ['path', '/\u202emoc.lapyap\u2066x\u2069\u200d'],
    ]);
    const out = renderUrl(d, 'html');
    expect(out).toContain(
      '/<span class="meg-hidden">\\u{202E}</span>moc.lapyap<span class="meg-hidden">\\u{2066}</span>x<span ' +
        'class="meg-hidden">\\u{2069}</span><span class="meg-hidden">\\u{200D}</span>',
    );
    expect(out).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b-\u200f]/);
  });

  it('escapes finding messages and shows markers with an accessible label', () => {
    const out = renderUrl(embedded, 'html', [{ code: 'URL_X', severity: 'error', message: '<b>"bad"</b> & \u202e' }]);
    expect(out).toContain(
      '<li class="meg-finding meg-finding-error"><span class="meg-marker" role="img" aria-label="error">✖</span> <code ' +
        'class="meg-code">URL_X</code> &lt;b&gt;&quot;bad&quot;&lt;/b&gt; &amp; <span class="meg-hidden">\\u{202E}</span></li>',
    );
  });

  it('has a Punycode note only when punycodeShown', () => {
    expect(renderUrl({ ...google, punycodeShown: true }, 'html')).toContain('<p class="meg-punycode">shown in Punycode because');
    expect(renderUrl(google, 'html')).not.toContain('meg-punycode');
  });

  it('emits no markup but its own, whatever the input (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 60 }), (path, message) => {
        const d = display([
          ['scheme', 'https'],
          ['separator', '://'],
          ['registrable', 'example.com', true],
          ['path', path],
        ]);
        const out = renderUrl(d, 'html', [{ code: 'URL_X', severity: 'warning', message }]);
        const text = out.replace(KNOWN_TAGS, '');
        return (
          !/[<>"']/.test(text) &&
          !/[\u202a-\u202e\u2066-\u2069\u0000-\u0008\u001b]/.test(text) &&
          out.includes('<mark class="meg-registrable">example.com</mark>')
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe('renderUrl format argument', () => {
  it('rejects an unknown format', () => {
    expect(() => renderUrl(google, 'markdown' as RenderFormat)).toThrow(TypeError);
  });
});
