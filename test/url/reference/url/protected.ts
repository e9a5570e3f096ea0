/**
 * The domains whose look-alikes are blocked: a curated list of identity, OAuth, payment,
 * code-hosting and cloud providers (the sites an elicitation URL would most want to imitate),
 * plus the `top-sites` top 500 snapshot, plus Chromium's top-domain list (its top bucket for every
 * check; the whole list for skeleton and whole-script-confusable matching, as Chromium uses it),
 * plus the policy's `url.protectedDomains`.
 */
import { parse } from 'tldts';
import chromiumTopDomains from '../../../../src/url/data/chromium-top-domains.json' with { type: 'json' };
import topSites from '../../../../src/url/data/top-sites.json' with { type: 'json' };
import { cachedByList } from './settings.js';

/**
 * Identity providers, payment, crypto, code hosting, cloud, collaboration, social sign-in and a
 * focused set of large banks. Registrable domains only; their subdomains are covered.
 */
export const CURATED_PROTECTED_DOMAINS: readonly string[] = Object.freeze([
  // identity and sign-in
  'google.com',
  'gmail.com',
  'youtube.com',
  'microsoft.com',
  'microsoftonline.com',
  'live.com',
  'outlook.com',
  'office.com',
  'office365.com',
  'hotmail.com',
  'azure.com',
  'sharepoint.com',
  'onedrive.com',
  'xbox.com',
  'skype.com',
  'apple.com',
  'icloud.com',
  // the sign-in and identity-CDN domains of those providers (Microsoft Entra, Adobe IMS, Okta)
  'msauth.net',
  'msftauth.net',
  'microsoftonline-p.com',
  'adobelogin.com',
  'oktacdn.com',
  'okta.com',
  'auth0.com',
  'onelogin.com',
  'duosecurity.com',
  'pingidentity.com',
  'jumpcloud.com',
  'login.gov',
  'id.me',
  '1password.com',
  'lastpass.com',
  'bitwarden.com',
  'yahoo.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'zoho.com',
  'yandex.ru',
  // code hosting and developer platforms
  'github.com',
  'githubusercontent.com',
  'gitlab.com',
  'bitbucket.org',
  'atlassian.com',
  'atlassian.net',
  'npmjs.com',
  'cloudflare.com',
  'amazon.com',
  'amazonaws.com',
  'openai.com',
  'chatgpt.com',
  'anthropic.com',
  'claude.ai',
  // collaboration and storage
  'slack.com',
  'zoom.us',
  'dropbox.com',
  'box.com',
  'salesforce.com',
  'docusign.com',
  'docusign.net',
  'adobe.com',
  'notion.so',
  'discord.com',
  'telegram.org',
  'whatsapp.com',
  // social sign-in
  'facebook.com',
  'instagram.com',
  'meta.com',
  'messenger.com',
  'x.com',
  'twitter.com',
  'linkedin.com',
  'tiktok.com',
  'reddit.com',
  'snapchat.com',
  // payment and commerce
  'paypal.com',
  'paypal.me',
  'stripe.com',
  'squareup.com',
  'venmo.com',
  'cash.app',
  'wise.com',
  'revolut.com',
  'klarna.com',
  'americanexpress.com',
  'visa.com',
  'mastercard.com',
  'ebay.com',
  'netflix.com',
  'spotify.com',
  'steampowered.com',
  'steamcommunity.com',
  // crypto
  'coinbase.com',
  'binance.com',
  'kraken.com',
  'okx.com',
  'bybit.com',
  'kucoin.com',
  'metamask.io',
  'blockchain.com',
  'crypto.com',
  'gemini.com',
  'ledger.com',
  'trezor.io',
  // banks
  'chase.com',
  'bankofamerica.com',
  'wellsfargo.com',
  'citi.com',
  'citibank.com',
  'capitalone.com',
  'usbank.com',
  'ally.com',
  'hsbc.com',
  'barclays.co.uk',
  'santander.com',
  'schwab.com',
  'fidelity.com',
  'vanguard.com',
  'robinhood.com',
]);

/**
 * Product names that stand for a curated brand in combo-squatting (`secure-appleid-signin.com`,
 * `aws-console-signin.net`): the name a phishing page uses, mapped to the brand's domain.
 */
export const BRAND_ALIASES: ReadonlyMap<string, string> = new Map([
  ['appleid', 'apple.com'],
  ['itunes', 'apple.com'],
  ['aws', 'amazon.com'],
  ['msft', 'microsoft.com'],
  ['gsuite', 'google.com'],
  ['gdrive', 'google.com'],
  ['steam', 'steampowered.com'],
]);

/**
 * Second-level labels that are ordinary words. A brand that is also a word (`apple` in
 * `pineapple-recipes.com`, `live`, `office`, `box`) is matched only as a whole token, never as a
 * substring; it is not reported inside another site's subdomain, and it is an embedding target
 * only in the dotted form (`apple.com.evil.net`), never hyphenated or glued.
 */
export const COMMON_WORD_LABELS: ReadonlySet<string> = new Set([
  'apple',
  'amazon',
  'live',
  'outlook',
  'office',
  'box',
  'zoom',
  'slack',
  'square',
  'chase',
  'visa',
  'wise',
  'cash',
  'gemini',
  'ledger',
  'kraken',
  'crypto',
  'blockchain',
  'meta',
  'discord',
  'notion',
  'telegram',
  'signal',
  'steam',
  'proton',
  'messenger',
  'fidelity',
  'vanguard',
  'citi',
  'azure',
  'docker',
  'target',
  'time',
  'medium',
  'line',
  'wired',
  'nature',
  'change',
  'answers',
  'login',
  'about',
  'home',
  'house',
  'offset',
  'insider',
  'express',
  'standard',
  'mirror',
  'metro',
  'fortune',
  'variety',
  'goal',
  'vice',
  'example',
  'android',
  'java',
  'intel',
  'oracle',
  'disney',
  'reuters',
  'archive',
  'booking',
  'fandom',
  'behance',
  'issuu',
  'wallpapers',
  'perfectdomain',
  'economist',
  'guardian',
  'independent',
  'mail',
  'plesk',
  'nginx',
  'sapo',
  'terra',
  'globo',
  'waze',
  'twitch',
  'yelp',
  'imgur',
  'scribd',
  'statista',
  'marca',
  'shutterstock',
  'unsplash',
  'eventbrite',
  'dribbble',
  'canva',
  'ally',
]);

/** Brands so generic that they never count in combo-squatting (`live-support`, `box-office`, `cash-refund`). */
export const GENERIC_WORD_LABELS: ReadonlySet<string> = new Set([
  'live',
  'box',
  'office',
  'wise',
  'cash',
  'line',
  'time',
  'target',
  'home',
  'about',
  'mail',
  'square',
  'signal',
  'meta',
  'ally',
  'login',
  'house',
  'change',
  'answers',
  'express',
  'standard',
  'mirror',
  'metro',
  'fortune',
  'variety',
  'goal',
  'vice',
  'example',
  'medium',
  'nature',
  'wired',
  'offset',
  'insider',
  'visa',
  'crypto',
  'blockchain',
  'messenger',
]);

export interface ProtectedSite {
  /** Registrable domain, ASCII (Punycode) form. */
  readonly domain: string;
  /** The label before the public suffix (`paypal`). */
  readonly label: string;
  /** The public suffix (`com`, `co.uk`). */
  readonly suffix: string;
  /** From the curated list or the policy (a brand worth combo-squatting checks), not only from top sites. */
  readonly curated: boolean;
  /** The label is an ordinary word (see `COMMON_WORD_LABELS`). */
  readonly commonWord: boolean;
}

const REGISTRABLE_OPTIONS = { allowPrivateDomains: false, extractHostname: true, detectIp: true, validateHostname: false } as const;

/** Reduces a host name (or URL) to a protected site, or null when it has no registrable domain. */
export function toProtectedSite(host: string, curated: boolean): ProtectedSite | null {
  let ascii: string;
  try {
    ascii = new URL(`https://${host.trim().toLowerCase()}/`).hostname;
  } catch {
    return null;
  }
  const parsed = parse(ascii, REGISTRABLE_OPTIONS);
  if (parsed.isIp === true || parsed.domain === null || parsed.publicSuffix === null || parsed.domainWithoutSuffix === null) return null;
  const label = parsed.domainWithoutSuffix;
  return { domain: parsed.domain, label, suffix: parsed.publicSuffix, curated, commonWord: COMMON_WORD_LABELS.has(label) };
}

function buildBuiltIn(): ReadonlyMap<string, ProtectedSite> {
  const sites = new Map<string, ProtectedSite>();
  for (const host of CURATED_PROTECTED_DOMAINS) {
    const site = toProtectedSite(host, true);
    if (site !== null) sites.set(site.domain, site);
  }
  for (const host of [...(topSites as { domains: readonly string[] }).domains, ...CHROMIUM.top]) {
    const site = toProtectedSite(host, false);
    if (site !== null && !sites.has(site.domain)) sites.set(site.domain, site);
  }
  return sites;
}

interface ChromiumTopDomains {
  readonly source: string;
  readonly revision: string;
  /** The top bucket (before `###END_TOP_BUCKET###`): about 500 sites. */
  readonly top: readonly string[];
  /** The rest of the list: about 4,500 sites. */
  readonly rest: readonly string[];
}

const CHROMIUM = chromiumTopDomains as ChromiumTopDomains;

/** Where the Chromium part of the list came from (file and revision). */
export const CHROMIUM_TOP_DOMAINS_SOURCE: string = `${CHROMIUM.source}@${CHROMIUM.revision}`;

/** Every built-in protected site, by registrable domain: curated, top-sites and Chromium's top bucket. */
export const BUILT_IN_SITES: ReadonlyMap<string, ProtectedSite> = buildBuiltIn();

function buildChromiumRest(): ReadonlyMap<string, ProtectedSite> {
  const sites = new Map<string, ProtectedSite>();
  for (const host of CHROMIUM.rest) {
    const site = toProtectedSite(host, false);
    if (site !== null && !BUILT_IN_SITES.has(site.domain)) sites.set(site.domain, site);
  }
  return sites;
}

/**
 * The rest of Chromium's top-domain list: protected against homographs (skeleton and
 * whole-script-confusable matches), not against typos or keyword combinations, as in Chromium.
 */
export const SKELETON_ONLY_SITES: ReadonlyMap<string, ProtectedSite> = buildChromiumRest();

/** Where the top-sites part of the list came from (e.g. `top-sites@1.1.222`). */
export const TOP_SITES_SOURCE: string = (topSites as { source: string }).source;

/** The built-in protected registrable domains, plus `extra` (e.g. `policy.url.protectedDomains`). */
export function protectedDomains(extra: readonly string[] = []): string[] {
  const out = new Set([...BUILT_IN_SITES.keys(), ...SKELETON_ONLY_SITES.keys()]);
  for (const host of extra) {
    const site = toProtectedSite(host, true);
    if (site !== null) out.add(site.domain);
  }
  return [...out].sort();
}

/** Walks `host` and its parent domains; true when one of them is in `domains`. */
export function isSameOrSubdomain(host: string, domains: { has(domain: string): boolean }): boolean {
  let h = host;
  for (;;) {
    if (domains.has(h)) return true;
    const dot = h.indexOf('.');
    if (dot < 0) return false;
    h = h.slice(dot + 1);
  }
}

/**
 * True when `host` (ASCII or Unicode, any case) is a protected domain or one of its subdomains,
 * counting the built-in list and `extra` (the policy's `url.protectedDomains`).
 */
export function isProtectedDomain(host: string, extra: readonly string[] = []): boolean {
  let ascii: string;
  try {
    ascii = new URL(`https://${String(host).trim().toLowerCase()}/`).hostname;
  } catch {
    return false;
  }
  if (isSameOrSubdomain(ascii, BUILT_IN_SITES)) return true;
  if (extra.length === 0) return false;
  return isSameOrSubdomain(ascii, cachedByList(EXTRA_DOMAIN_SETS, extra, extraDomainSet));
}

const EXTRA_DOMAIN_SETS = new WeakMap<readonly string[], { readonly length: number; readonly value: ReadonlySet<string> }>();

function extraDomainSet(extra: readonly string[]): ReadonlySet<string> {
  const out = new Set<string>();
  for (const e of extra) {
    const site = toProtectedSite(e, true);
    if (site !== null) out.add(site.domain);
  }
  return out;
}
