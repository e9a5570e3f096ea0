/**
 * The finding codes of the URL analysis: a stable public contract. Hosts match on these strings
 * (to localise messages, to count, to allow one finding through in a policy), so a code is never
 * renamed or reused with another meaning; new rules get new codes.
 *
 * Severity is fixed per code except where noted: `error` blocks, `warning` warns, `info` is shown.
 */
export const UrlFinding = {
  // --- the input itself -------------------------------------------------------------------
  /** error: the value is not a string. */
  invalidInput: 'URL_INVALID_INPUT',
  /** error: the URL (as given, or once canonicalised) is longer than `policy.url.maxLength`. */
  tooLong: 'URL_TOO_LONG',
  /** error: the string holds a lone UTF-16 surrogate, which the parser would silently replace. */
  malformedUnicode: 'URL_MALFORMED_UNICODE',
  /** error: not an absolute URL the WHATWG parser accepts (relative, garbage, bad IDNA). */
  notAbsolute: 'URL_NOT_ABSOLUTE',
  /** error: a C0/C1 control character (tab, newline, NUL, ...) anywhere in the input; the parser drops tabs and newlines silently. */
  controlCharacter: 'URL_CONTROL_CHARACTER',
  /** error: an invisible character (zero-width space/joiner, soft hyphen, variation selector, Unicode space, ...) anywhere in the input. */
  invisibleCharacter: 'URL_INVISIBLE_CHARACTER',
  /** error: a bidirectional control (RLO, LRI, ALM, LRM, ...) anywhere in the input. */
  bidiControl: 'URL_BIDI_CONTROL',
  /** error: an unexpected internal failure; the URL is blocked rather than shown unchecked. */
  internalError: 'URL_INTERNAL_ERROR',

  // --- structure ----------------------------------------------------------------------------
  /** error: the scheme is not allowed by the policy profile (production: https only; development: also http to loopback). */
  scheme: 'URL_SCHEME_NOT_ALLOWED',
  /** error: the URL carries userinfo (`user:pass@host`, or a bare `@` before the host). */
  userinfo: 'URL_USERINFO',
  /** error: the host is an IP literal (IPv4 in any notation, IPv6); allowed only for loopback in development. */
  ipHost: 'URL_IP_HOST',
  /** error: the host was written as an IP address in a non-canonical notation (decimal, hex, octal, short form, IPv4-mapped IPv6). Blocks in every profile. */
  ipObfuscated: 'URL_IP_OBFUSCATED',
  /** error: the host has no registrable domain (a bare public suffix, a single label, `localhost` in production). */
  noRegistrableDomain: 'URL_NO_REGISTRABLE_DOMAIN',
  /** error: the top-level domain is not on the Public Suffix List (`.local`, `.internal`, an undelegated look-alike TLD, ...). */
  unknownSuffix: 'URL_UNKNOWN_SUFFIX',
  /** error: the host was written with percent-escapes (`%70aypal.com`), which the parser decodes. */
  hostPercentEncoded: 'URL_HOST_PERCENT_ENCODED',
  /** error: the host has an empty label (`a..b.com`, `.a.com`, or a trailing dot `a.com.`). */
  emptyLabel: 'URL_EMPTY_LABEL',
  /** error: the host is longer than 253 characters or one of its labels longer than 63 (in ASCII form). */
  hostTooLong: 'URL_HOST_TOO_LONG',
  /** error: the host holds a character that is not a letter, digit, hyphen, underscore or dot once canonicalised. */
  hostCharacter: 'URL_HOST_INVALID_CHARACTER',
  /** error: a character inside the host that looks like a URL delimiter (a slash, dot, colon or at-sign look-alike, as Chromium's spoof checks list them): the host reads as another site followed by a path. */
  hostDelimiterLookalike: 'URL_HOST_DELIMITER_LOOKALIKE',
  /** error: the host was written with compatibility characters (fullwidth or mathematical letters, ligatures, ideographic full stops) that the parser rewrote: an obfuscated host that other parsers read differently; the message names the real host. */
  hostNormalized: 'URL_HOST_NORMALIZED',
  /** error: the URL holds a backslash before its query, which browsers read as "/" and other parsers do not (`https://evil.com\@paypal.com`). */
  backslash: 'URL_BACKSLASH',
  /** error: a protected domain written after an `@` outside the authority (`https://evil.com#@paypal.com`), where it reads as the destination. */
  decoyHost: 'URL_DECOY_HOST',
  /** error: a special-use name that is not on the public internet (`.local`, `.internal`, `.home.arpa`, `.onion`, `.test`, ...). */
  specialUseHost: 'URL_SPECIAL_USE_HOST',
  /** error: `policy.url.allowedHosts` is set and the host is neither one of them nor a subdomain of one. */
  hostNotAllowed: 'URL_HOST_NOT_ALLOWED',
  /** info: a loopback host accepted because the policy profile is `development`. */
  loopbackDevelopment: 'URL_LOOPBACK_DEVELOPMENT',

  // --- what the URL carries -----------------------------------------------------------------
  /** error: a credential in the query, fragment, path or host (a parameter named like a secret with a secret-looking value, a JWT, a known API-key prefix), or a URL that is itself a secret (webhook endpoints). */
  credential: 'URL_CREDENTIAL',
  /** error: personal data in the query, fragment or path (an e-mail address, also in an OIDC `login_hint`; a phone number; an identity number, birth date, IP address or location under its usual name). */
  personalData: 'URL_PERSONAL_DATA',
  /** error: payment data in the URL (a card number that passes Luhn, a card security code, an IBAN, a bank account number). */
  paymentData: 'URL_PAYMENT_DATA',
  /** warning (info for an OAuth `redirect_uri`): a redirect-like parameter points to another site; the message names its host. */
  redirectOffsite: 'URL_REDIRECT_OFFSITE',
  /** info: a redirect-like parameter points to a loopback address (normal for native OAuth clients, RFC 8252). */
  redirectLoopback: 'URL_REDIRECT_LOOPBACK',
  /** error: `policy.url.redirectHosts` is set and a redirect-like parameter points elsewhere. */
  redirectNotAllowed: 'URL_REDIRECT_NOT_ALLOWED',
  /** error: a redirect-like parameter (or a base64-encoded URL, or a redirector's path) points to a target that would itself be blocked: a look-alike of a protected domain, an IP literal, a script/data URL, a target that carries credentials. */
  redirectUnsafe: 'URL_REDIRECT_UNSAFE_TARGET',
  /** warning: the host is a well-known URL shortener or wrapping redirector; where the link leads cannot be shown before it is opened. */
  shortener: 'URL_SHORTENER',

  // --- look-alikes of protected domains -------------------------------------------------------
  /** error: the registrable domain has the same UTS #39 skeleton as a protected domain without being it (homograph: `аррӏе.com`, `pаypal.com`). */
  lookalikeHomoglyph: 'URL_LOOKALIKE_HOMOGLYPH',
  /** error: the registrable domain is one typo away from a protected domain (`paypa1.com`, `rnicrosoft.com`, `githbu.com`, `paypall.com`). */
  lookalikeTyposquat: 'URL_LOOKALIKE_TYPOSQUAT',
  /** error: a protected brand combined with a phishing keyword (`paypal-login-secure.com`, `secure-paypal-verify.net`). */
  lookalikeCombo: 'URL_LOOKALIKE_COMBOSQUAT',
  /** error (warning on CDN edge hosts): a protected domain embedded in a host of another site (`paypal.com.evil.net`, `login.paypal.com-secure.io`, `paypal-com.evil.net`). */
  lookalikeEmbedded: 'URL_LOOKALIKE_EMBEDDED',
  /** warning: a protected brand name as a subdomain label of another site (`paypal.example.net`). */
  brandInSubdomain: 'URL_BRAND_IN_SUBDOMAIN',
  /** error (warning under a top-level domain that is not among the most abused): a protected brand as the whole site name under a top-level domain the brand does not own (`paypal.xyz`, `coinbase.top`). */
  lookalikeBrandTld: 'URL_LOOKALIKE_BRAND_TLD',

  // --- internationalised labels (the host is then shown in Punycode) ---------------------------
  /** warning: a label mixes scripts beyond what UTS #39 "highly restrictive" allows (Latin may join only Han+Kana, Han+Bopomofo, Han+Hangul). */
  idnMixedScript: 'URL_IDN_MIXED_SCRIPT',
  /** warning: a single-script label made only of letters that look Latin, under a TLD of another script (`ѕсоре.com`). */
  idnWholeScriptConfusable: 'URL_IDN_WHOLE_SCRIPT_CONFUSABLE',
  /** warning: a label made of digits and digit look-alikes, or mixing numbering systems. */
  idnDigitLookalike: 'URL_IDN_DIGIT_LOOKALIKE',
  /** warning: a character outside the identifier profile (symbols, emoji, obsolete or limited-use scripts, the ranges Chromium removes). */
  idnDisallowedCharacter: 'URL_IDN_DISALLOWED_CHARACTER',
  /** warning: a zero-width joiner or non-joiner inside a Punycode label. */
  idnDeviationCharacter: 'URL_IDN_DEVIATION_CHARACTER',
  /** warning: a combining mark that did not compose (after a dotless i/j, repeated, or after a letter of another script). */
  idnCombiningMark: 'URL_IDN_COMBINING_MARK',
  /** warning: a character its TLD's rules do not allow (þ/ð outside .is/.fo, ə outside .az, middle dot outside .cat `l·l`). */
  idnTldCharacter: 'URL_IDN_TLD_RESTRICTED_CHARACTER',
  /** warning: one of Chromium's dangerous patterns (Kana/CJK slash and dash look-alikes, `i̇`, ...). */
  idnDangerousPattern: 'URL_IDN_DANGEROUS_PATTERN',
} as const;

export type UrlFindingCode = (typeof UrlFinding)[keyof typeof UrlFinding];
