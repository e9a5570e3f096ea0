/**
 * The multilingual lexicon of the sensitive-field classifier: what a form field may be asking for.
 * Hand-written terms in English, Chinese (simplified and traditional), Japanese, Korean, German,
 * French, Spanish, Portuguese and Russian (and a few words of other languages), plus the generated
 * sign-in vocabulary of 42 languages (`data/translations.ts`, from `@clerk/localizations`), plus the
 * modifier + head compounds (`COMPOUNDS`) and the word lists the reading rules use. Data only; the
 * matching rules live in `matcher.ts`, the reading of a whole form in `classify.ts`.
 *
 * How terms are matched (see `normalize.ts`):
 * - Text is NFKC-normalised, lower-cased, `ß` → `ss`, and Latin/Cyrillic diacritics are folded
 *   (`contraseña` = `contrasena`, `Schlüssel` = `schlussel`, `учётные` = `учетные`).
 * - Alphabetic terms match whole words or whole word sequences. Property names are split on
 *   camelCase, snake_case, kebab-case, UPPER_CASE and letter/digit boundaries first, so
 *   `mot_de_passe`, `motDePasse` and `MOT-DE-PASSE` all read "mot de passe", and `password2`
 *   reads "password 2". Whole-word matching is what keeps `tokenizer`, `keyword`, `keyboard`,
 *   `secretary` and `passwordless` ordinary: none of them is the word `token`, `key`, `secret` or
 *   `password`.
 * - Han, Kana and Hangul terms match as substrings of the text with spaces and punctuation
 *   removed (`API 密钥` = `api密钥`), because those scripts do not put spaces between words.
 * - The longest term wins at each position, and a benign compound (class `ordinary`) shields the
 *   words it covers: `public key` is never read as a key, `palabra clave` (keyword) never as
 *   `clave` (password), `密码学` (cryptography) never as `密码` (password).
 *
 * Decisions on look-alikes (each has a fixture in `fixtures/forms/labelled.jsonl`):
 * - `max_tokens`, `token_count`, `token_budget`, `num_tokens`: ordinary. The plural `tokens` is
 *   not a term (a credential field asks for one token), and a count/limit/budget word right
 *   after `token` (or max/min right before it) makes the field *about* tokens, not a token.
 * - `password_min_length`, `password_policy`, `min_password_length`, `password_hint`: ordinary,
 *   by the same rule (`NEUTRAL_AFTER` / `NEUTRAL_BEFORE`): the head of the compound is the
 *   length or the policy. `password_confirmation`, `confirm_password`, `new_password`,
 *   `password2` stay credential: confirmation/new/2 are not neutralisers.
 * - `forgot_password_email`: personal. `forgot` neutralises `password`; the head `email` is
 *   personal. `password_reset_token` stays credential: `reset` neutralises `password`, but
 *   `token` itself is a credential.
 * - `public_key`, `publicKey`, `公钥`, `公開鍵`, `공개 키`: ordinary (benign compounds); a public
 *   key is meant to be shared. `private_key` is credential.
 * - `key_name`, `api_key_name`, `secret_name`, `token_id`: ordinary. After a credential term, a
 *   name/id/label/prefix word means the field names or identifies the secret, not holds it
 *   (`NEUTRAL_AFTER_CREDENTIAL`). This does not apply to personal documents: `passport_id` is
 *   the passport number and stays personal.
 * - `primary_key`, `sort_key`, `foreign_key`, `partition_key`: ordinary; bare `key` is not a
 *   term at all (map key, musical key, license key): it becomes credential only when the form's
 *   message says so (e.g. "enter your OpenAI API key" for a field named `key`).
 * - `api_version`, `api_endpoint`: ordinary; `api` alone is not a term.
 * - `pin_code` / `pinCode` / `PIN-Code`: ambiguous. In India a "PIN code" is the postal code; in
 *   German and French ("PIN-Code", "code PIN") it is the secret PIN. Decision: credential, unless
 *   the form has address context (another field or the field's own title/description mentions
 *   an address, street, city, state, district, postal/zip code, delivery...), then personal
 *   (an address component). `pincode` written as one word is the Indian postal usage: personal.
 *   Bare `pin` is always credential.
 * - Postal codes, zip codes and addresses are personal (spec L35–38 treats contact and profile
 *   data as personal, not prohibited); city, state and country alone are ordinary.
 * - `secret_santa_name`: ordinary (`secret santa` is a benign compound; a thing's name is not a
 *   person's name). `secret` alone is credential.
 * - `card_title`, `card_type`, `card_brand`, `gift_card_message`: ordinary; `card` alone is not a
 *   term and `gift card` is a benign compound. `gift_card_number` / `gift_card_code` are
 *   payment (spendable), `card_number`, `cvv`, `cvc` payment.
 * - `credit_score`: ordinary. A score is neither a credential nor a payment instrument; it is
 *   personal-ish, but not on the personal list (identity numbers, birth date, contact data).
 * - `security code`: payment when the form is about a card (another payment field, or
 *   card/payment words in the message), otherwise credential (a 2FA security code). Blocked
 *   either way under the default policy.
 * - `expiry` / `expiration date` / `有効期限` / `срок действия`: payment only in a payment form;
 *   alone they are ordinary (a key's or a document's expiry). `card_expiry`, `exp_month`... are
 *   payment.
 * - `name`, `login`, Spanish `nombre`, French `nom`, Portuguese `nome`, Russian `имя`, Korean
 *   `이름`: personal only when they are the whole label ("Name", "Your name"). `user` is personal
 *   (a username) when it is the head of the label: `user`, `db_user`, `github_user`, not `user_count`.
 *   `project_name`, `file_name`, `имя файла`, `파일 이름` are names of things: ordinary.
 *   `first_name`, `full_name`, `surname`, `username`... are personal wherever they appear.
 * - `email`, `phone`, `address`, `username` are personal (spec L35–38: not prohibited, the user
 *   reviews). `ip_address`, `wallet_address`, `mac_address`, `server_address` are ordinary.
 * - `pass` (names only, and only as the head: `pass`, `user_pass`, `db_pass`): credential;
 *   `pass_rate`, `pass_navigo` are not, and `boarding_pass`, `day_pass`, `ski_pass` are benign
 *   compounds.
 * - `seed` alone is ordinary (a random seed); `seed phrase`, `mnemonic`, `recovery phrase` are
 *   credential.
 * - `authenticator` alone is not a term (an enum "which authenticator app?" is fine);
 *   `authenticator code` and the OTP words are.
 * - `session_id`, `session_token`, `session_cookie`, `cookie`: credential (they grant access).
 *   `cookie_consent`, `session_timeout` are ordinary.
 * - `access_key_id` / `client_id`: ordinary (identifiers, not secrets); `secret_access_key`,
 *   `client_secret`: credential.
 * - `connection string`: credential (it normally embeds a password).
 * - Spanish `clave` alone reads as password (Latin American usage: "ingrese su clave"), with
 *   `palabra clave`, `clave primaria`, `clave pública` as benign compounds. Korean `암호` reads
 *   as password, with `암호화` (encryption, also inside `암호화폐`) benign. Chinese `验证码`
 *   is a one-time code, but `图形验证码` (a captcha) is benign.
 * - German compounds ending in `passwort` / `kennwort` (`Benutzerpasswort`, `Einmalkennwort`)
 *   are credential (suffix match); compounds that start with them (`Passwortlänge`,
 *   `Passwortrichtlinie`) are not, except the listed `Passwortbestätigung`,
 *   `Passwortwiederholung`.
 * - Yes/no fields (`remember_password`, `has_passport`, `save_card`) are always ordinary: a
 *   boolean cannot carry a secret. Choice fields (enum, titled enum, multi-select) cannot carry a
 *   secret or a card number either, so credential/payment signals on them are reported but the
 *   class stays ordinary; personal signals on them stay personal (a choice can reveal a birth year).
 */

import { TRANSLATED_TERMS } from './data/translations.js';
import type { FieldClass } from './types.js';

/**
 * The language of a term: a BCP 47 primary subtag. The hand-written terms cover en, zh, ja, ko, de,
 * fr, es, pt, ru and a few more; `data/translations.ts` (generated) adds the sign-in vocabulary of
 * 42 languages.
 */
export type Lang = string;

/** What a term names. `benign` marks a compound that shields its words (class `ordinary`). */
export type Concept =
  | 'password'
  | 'passphrase'
  | 'pin'
  | 'otp'
  | 'secret'
  | 'api-key'
  | 'access-token'
  | 'refresh-token'
  | 'bearer'
  | 'private-key'
  | 'seed-phrase'
  | 'client-secret'
  | 'session'
  | 'security-answer'
  | 'cloud-credentials'
  | 'pre-shared-key'
  | 'credentials'
  | 'card-number'
  | 'card-security-code'
  | 'card-expiry'
  | 'iban'
  | 'bank-account'
  | 'routing-number'
  | 'bank-login'
  | 'national-id'
  | 'passport'
  | 'tax-id'
  | 'date-of-birth'
  | 'driver-licence'
  | 'email'
  | 'phone'
  | 'address'
  | 'postal-code'
  | 'person-name'
  | 'username'
  | 'benign';

/**
 * How a match turns into a class:
 * - `strong`: always.
 * - `bare`: only when the term is the whole label, possessives aside ("Name", "Your name").
 * - `head`: only when the term ends the label, i.e. is its head noun (`db_user`, `github_user`, but not `user_count`).
 * - `needs-payment`: payment when the form is about a card or a bank, otherwise no signal.
 * - `pin-code`: credential, or personal (postal code) when the form has address context.
 * - `security-code`: payment when the form is about a card, otherwise credential.
 * - `phrase`: a whole question or request ("name of your first pet"): always, wherever it stands in
 *   the label (it is not read as a modifier of another noun).
 */
export type MatchRule = 'strong' | 'bare' | 'head' | 'needs-payment' | 'pin-code' | 'security-code' | 'phrase';

export interface LexiconEntry {
  /** The term as written in its language; reasons quote it (e.g. `title:密码`). */
  readonly term: string;
  readonly lang: Lang;
  readonly class: FieldClass;
  readonly concept: Concept;
  readonly rule: MatchRule;
  /**
   * `name`: only in property names (abbreviations such as `pwd`, `pass`, `ssn` that are too ambiguous
   * in prose); `label`: in names and titles (words that fold onto common words of another language).
   */
  readonly scope: 'any' | 'name' | 'label';
  /** Also matches as the tail of a longer word (German compounds: `Benutzerpasswort`). */
  readonly suffix: boolean;
}

interface GroupOptions {
  readonly rule?: MatchRule;
  readonly scope?: 'any' | 'name' | 'label';
  readonly suffix?: boolean;
}

function group(lang: Lang, cls: FieldClass, concept: Concept, terms: readonly string[], options: GroupOptions = {}): LexiconEntry[] {
  return terms.map((term) => ({ term, lang, class: cls, concept, rule: options.rule ?? 'strong', scope: options.scope ?? 'any', suffix: options.suffix ?? false }));
}

const C = 'credential' as const;
const P = 'payment' as const;
const I = 'personal' as const;
const O = 'ordinary' as const;

const ENGLISH: LexiconEntry[] = [
  ...group('en', C, 'password', ['password', 'passwords', 'login password', 'master password', 'bank password']),
  ...group('en', C, 'password', ['passwd', 'pwd', 'pw', 'pword', 'pswd'], { scope: 'name' }),
  ...group('en', C, 'password', ['pass'], { scope: 'label', rule: 'head' }),
  ...group('en', C, 'passphrase', ['passphrase', 'pass phrase', 'passcode', 'pass code', 'passkey', 'access code', 'wifi key', 'wi fi key', 'wpa key', 'wpa2 key', 'wep key', 'network key', 'wlan key']),
  ...group('en', C, 'pin', ['pin', 'pin number', 'pin no', 'one time pin']),
  ...group('en', C, 'pin', ['pin code'], { rule: 'pin-code' }),
  ...group('en', C, 'otp', [
    'otp',
    'totp',
    'hotp',
    'one time password',
    'one time passcode',
    'one time code',
    'verification code',
    'confirmation code',
    'auth code',
    'authentication code',
    'authorization code',
    'authenticator code',
    '2fa',
    '2fa code',
    'two factor code',
    'two factor authentication code',
    'mfa',
    'mfa code',
    'sms code',
    'backup code',
    'backup codes',
    'recovery code',
    'recovery codes',
  ]),
  ...group('en', C, 'otp', ['tfa', 'mfa token'], { scope: 'name' }),
  ...group('en', C, 'otp', ['security code'], { rule: 'security-code' }),
  ...group('en', C, 'secret', [
    'secret',
    'secrets',
    'secret key',
    'api secret',
    'app secret',
    'application secret',
    'consumer secret',
    'shared secret',
    'webhook secret',
    'signing secret',
    'signing key',
    'encryption key',
    'decryption key',
    'master key',
    'hmac key',
    'recovery key',
    'connection string',
  ]),
  ...group('en', C, 'client-secret', ['client secret']),
  ...group('en', C, 'api-key', ['api key', 'api keys', 'apikey', 'api token', 'access key', 'secret access key']),
  ...group('en', C, 'access-token', [
    'token',
    'access token',
    'auth token',
    'authentication token',
    'authorization token',
    'id token',
    'personal access token',
    'jwt',
    'csrf token',
  ]),
  ...group('en', C, 'access-token', ['pat', 'accesstoken', 'authtoken'], { scope: 'name' }),
  ...group('en', C, 'refresh-token', ['refresh token', 'refreshtoken']),
  ...group('en', C, 'bearer', ['bearer', 'bearer token', 'authorization header', 'auth header']),
  ...group('en', C, 'bearer', ['authorization'], { scope: 'name' }),
  ...group('en', C, 'session', ['session id', 'sessionid', 'session token', 'session cookie', 'session key', 'cookie', 'cookies']),
  ...group('en', C, 'private-key', ['private key', 'privatekey', 'priv key', 'secretkey']),
  ...group('en', C, 'private-key', ['privkey'], { scope: 'name' }),
  ...group('en', C, 'seed-phrase', [
    'seed phrase',
    'seed words',
    'seedphrase',
    'secret phrase',
    'recovery phrase',
    'secret recovery phrase',
    'mnemonic',
    'mnemonic phrase',
    'wallet seed',
  ]),
  ...group('en', C, 'security-answer', ['security answer', 'secret answer', 'security question answer']),
  ...group('en', C, 'credentials', ['credentials', 'credential', 'login credentials']),

  ...group('en', P, 'card-number', [
    'card number',
    'card no',
    'card num',
    'cardnumber',
    'credit card',
    'creditcard',
    'credit card number',
    'debit card',
    'debit card number',
    'cc number',
    'gift card number',
    'gift card code',
  ]),
  ...group('en', P, 'card-number', ['ccnumber', 'ccnum', 'ccn', 'cc num'], { scope: 'name' }),
  ...group('en', P, 'card-security-code', [
    'cvv',
    'cvc',
    'cvn',
    'card verification',
    'card verification code',
    'card verification value',
    'card security code',
  ]),
  ...group('en', P, 'card-security-code', ['csc', 'ccv', 'cvv2', 'cvc2'], { scope: 'name' }),
  // The scheme-specific names: CAV2 (JCB), CVP2 (Diners), CVD (Discover), CVE (Elo), SPC (UK).
  ...group('en', P, 'card-security-code', ['cav2', 'cvp2', 'cvd', 'cve', 'spc'], { scope: 'name', rule: 'needs-payment' }),
  ...group('en', P, 'card-expiry', [
    'card expiry',
    'card expiration',
    'card expiry date',
    'card expiration date',
    'card exp',
    'exp month',
    'exp year',
    'expiry month',
    'expiry year',
    'expiration month',
    'expiration year',
    'valid thru',
  ]),
  ...group('en', P, 'card-expiry', ['expiry', 'expiration', 'expiry date', 'expiration date', 'exp date', 'valid through', 'valid until'], { rule: 'needs-payment' }),
  ...group('en', P, 'iban', ['iban']),
  ...group('en', P, 'bank-account', ['account number', 'bank account', 'bank account number', 'acct number', 'bank details']),
  ...group('en', P, 'routing-number', ['routing number', 'aba number', 'aba routing number', 'sort code', 'bsb', 'bsb number', 'transit number']),
  ...group('en', P, 'bank-login', ['bank login', 'online banking', 'bank credentials']),

  ...group('en', I, 'national-id', [
    'ssn',
    'social security',
    'social security number',
    'social insurance number',
    'national id',
    'national id number',
    'national identification number',
    'national identity number',
    'national insurance number',
    'id number',
    'identity number',
    'id card',
    'identity card',
    'id card number',
    'aadhaar',
    'aadhar',
    'nric',
  ]),
  ...group('en', I, 'national-id', ['sin', 'nino'], { scope: 'name' }),
  ...group('en', I, 'passport', ['passport', 'passport number', 'passport no']),
  ...group('en', I, 'tax-id', ['tax id', 'tax number', 'taxpayer id', 'tax identification number', 'itin', 'pan card', 'pan number']),
  ...group('en', I, 'tax-id', ['tin'], { scope: 'name' }),
  ...group('en', I, 'date-of-birth', ['date of birth', 'birth date', 'birthdate', 'birthday', 'dob', 'birth year', 'year of birth', 'dateofbirth']),
  ...group('en', I, 'driver-licence', [
    'driver license',
    'drivers license',
    "driver's license",
    'driver licence',
    'drivers licence',
    "driver's licence",
    'driving licence',
    'driving license',
  ]),
  ...group('en', I, 'email', ['email', 'e mail', 'email address', 'emailaddress', 'e mail address']),
  ...group('en', I, 'email', ['mail'], { rule: 'bare' }),
  ...group('en', I, 'phone', ['phone', 'phone number', 'phonenumber', 'telephone', 'telephone number', 'mobile number', 'cell phone', 'cellphone', 'mobile phone']),
  ...group('en', I, 'phone', ['mobile', 'cell', 'tel'], { rule: 'bare' }),
  ...group('en', I, 'address', [
    'address',
    'street',
    'street address',
    'home address',
    'mailing address',
    'postal address',
    'billing address',
    'shipping address',
    'delivery address',
    'address line',
  ]),
  ...group('en', I, 'postal-code', ['postal code', 'postcode', 'zip', 'zip code', 'zipcode', 'pincode']),
  ...group('en', I, 'person-name', [
    'full name',
    'fullname',
    'first name',
    'firstname',
    'last name',
    'lastname',
    'given name',
    'family name',
    'surname',
    'middle name',
    'legal name',
    'your name',
    'contact name',
    'customer name',
    'real name',
    'display name',
    'cardholder name',
    'cardholder',
    'card holder',
    'account holder',
    'account holder name',
    'name on card',
  ]),
  ...group('en', I, 'person-name', ['fname', 'lname'], { scope: 'name' }),
  ...group('en', I, 'person-name', ['name'], { rule: 'bare' }),
  ...group('en', I, 'username', ['username', 'user name', 'login name', 'login id', 'user id', 'userid', 'customer id', 'member id']),
  ...group('en', I, 'username', ['login'], { rule: 'bare' }),
  ...group('en', I, 'username', ['user'], { rule: 'head' }),

  ...group('en', O, 'benign', [
    'public key',
    'publickey',
    'public keys',
    'primary key',
    'sort key',
    'foreign key',
    'partition key',
    'idempotency key',
    'cache key',
    'dedup key',
    'secret santa',
    'gift card',
    'boarding pass',
    'bus pass',
    'day pass',
    'season pass',
    'ski pass',
    'ip address',
    'mac address',
    'wallet address',
    'server address',
    'contract address',
    'web address',
    'memory address',
    'bind address',
    'listen address',
    'remote address',
    'network address',
    'host address',
    'token type',
    'id token hint',
  ]),
];

const GERMAN: LexiconEntry[] = [
  ...group('de', C, 'password', ['passwort', 'kennwort'], { suffix: true }),
  ...group('de', C, 'password', ['passwörter', 'kennwörter', 'passwortbestätigung', 'passwortwiederholung', 'kennwortbestätigung', 'kennwortwiederholung']),
  ...group('de', C, 'pin', ['geheimzahl', 'PIN-Nummer']),
  ...group('de', C, 'otp', ['tan', 'einmalcode', 'bestätigungscode', 'verifizierungscode', 'zugangscode', 'authentifizierungscode', 'SMS-Code']),
  ...group('de', C, 'otp', ['sicherheitscode'], { rule: 'security-code' }),
  ...group('de', C, 'credentials', ['zugangsdaten', 'anmeldedaten']),
  ...group('de', C, 'api-key', ['API-Schlüssel', 'zugriffsschlüssel', 'zugangsschlüssel']),
  ...group('de', C, 'passphrase', ['WLAN-Schlüssel', 'netzwerkschlüssel', 'WLAN-Key']),
  ...group('de', C, 'access-token', ['zugriffstoken', 'zugangstoken']),
  ...group('de', C, 'refresh-token', ['aktualisierungstoken']),
  ...group('de', C, 'secret', ['geheimer schlüssel', 'geheimen schlüssel', 'geheimschlüssel', 'geheimnis', 'Client-Geheimnis']),
  ...group('de', C, 'private-key', ['privater schlüssel', 'privaten schlüssel', 'private schlüssel', 'privatschlüssel']),
  ...group('de', C, 'seed-phrase', ['wiederherstellungsphrase', 'mnemonische phrase']),
  ...group('de', P, 'card-number', ['kartennummer', 'kreditkartennummer', 'kreditkarte', 'kreditkarten nummer']),
  ...group('de', P, 'card-security-code', ['prüfnummer', 'kartenprüfnummer', 'prüfziffer']),
  ...group('de', P, 'card-expiry', ['ablaufdatum', 'gültig bis', 'gültigkeitsdatum'], { rule: 'needs-payment' }),
  ...group('de', P, 'bank-account', ['kontonummer', 'bankverbindung']),
  ...group('de', P, 'routing-number', ['bankleitzahl', 'blz']),
  ...group('de', I, 'national-id', ['sozialversicherungsnummer', 'personalausweis', 'personalausweisnummer', 'ausweisnummer', 'ausweis']),
  ...group('de', I, 'passport', ['reisepass', 'reisepassnummer', 'passnummer']),
  ...group('de', I, 'tax-id', ['Steuer-ID', 'steuernummer', 'steueridentifikationsnummer', 'Steuer-Identifikationsnummer']),
  ...group('de', I, 'date-of-birth', ['geburtsdatum', 'geburtstag']),
  ...group('de', I, 'driver-licence', ['führerschein', 'führerscheinnummer']),
  ...group('de', I, 'email', ['E-Mail-Adresse', 'Email-Adresse']),
  ...group('de', I, 'phone', ['telefon', 'telefonnummer', 'handynummer', 'mobilnummer', 'handy']),
  ...group('de', I, 'address', ['adresse', 'anschrift', 'straße', 'wohnadresse', 'lieferadresse', 'rechnungsadresse']),
  ...group('de', I, 'postal-code', ['postleitzahl', 'plz']),
  ...group('de', I, 'person-name', ['vorname', 'nachname', 'familienname', 'vollständiger name', 'kontoinhaber', 'karteninhaber']),
  ...group('de', I, 'username', ['benutzername', 'nutzername', 'anmeldename']),
  ...group('de', I, 'username', ['benutzer'], { rule: 'head' }),
  ...group('de', O, 'benign', ['öffentlicher schlüssel', 'öffentlichen schlüssel', 'primärschlüssel', 'sortierschlüssel', 'IP-Adresse']),
];

const FRENCH: LexiconEntry[] = [
  ...group('fr', C, 'password', ['mot de passe', 'mots de passe', 'motdepasse']),
  ...group('fr', C, 'password', ['mdp'], { scope: 'name' }),
  ...group('fr', C, 'passphrase', ['phrase de passe', 'phrase secrète']),
  ...group('fr', C, 'pin', ['code PIN', 'code confidentiel', 'code secret', "code d'accès", 'clé wifi', 'clé wi-fi']),
  ...group('fr', C, 'otp', ['code de vérification', 'code de confirmation', 'code à usage unique', "code d'authentification", 'mot de passe à usage unique']),
  ...group('fr', C, 'otp', ['code de sécurité'], { rule: 'security-code' }),
  ...group('fr', C, 'api-key', ['clé API', "clé d'API", "clé de l'API", "clé d'accès"]),
  ...group('fr', C, 'access-token', ['jeton', "jeton d'accès", "jeton d'authentification"]),
  ...group('fr', C, 'refresh-token', ["jeton d'actualisation", 'jeton de rafraîchissement']),
  ...group('fr', C, 'secret', ['clé secrète']),
  ...group('fr', C, 'client-secret', ['secret client', 'secret du client']),
  ...group('fr', C, 'private-key', ['clé privée']),
  ...group('fr', C, 'seed-phrase', ['phrase de récupération', 'phrase mnémonique']),
  ...group('fr', C, 'credentials', ['identifiants', 'identifiants de connexion']),
  ...group('fr', P, 'card-number', ['numéro de carte', 'numéro de carte bancaire', 'carte bancaire', 'carte de crédit', 'numéro de la carte']),
  ...group('fr', P, 'card-security-code', ['cryptogramme', 'cryptogramme visuel']),
  ...group('fr', P, 'card-expiry', ["date d'expiration", 'date de validité'], { rule: 'needs-payment' }),
  ...group('fr', P, 'iban', ['rib', "relevé d'identité bancaire"]),
  ...group('fr', P, 'bank-account', ['numéro de compte', 'coordonnées bancaires', 'compte bancaire']),
  ...group('fr', I, 'national-id', ['numéro de sécurité sociale', 'sécurité sociale', "carte d'identité", "numéro de carte d'identité", "numéro d'identité", 'nir']),
  ...group('fr', I, 'passport', ['passeport', 'numéro de passeport']),
  ...group('fr', I, 'tax-id', ['numéro fiscal', "numéro d'identification fiscale", 'numéro fiscal de référence']),
  ...group('fr', I, 'date-of-birth', ['date de naissance']),
  ...group('fr', I, 'driver-licence', ['permis de conduire', 'numéro de permis']),
  ...group('fr', I, 'email', ['courriel', 'adresse e-mail', 'adresse email', 'adresse électronique', 'adresse courriel']),
  ...group('fr', I, 'phone', ['téléphone', 'numéro de téléphone', 'portable']),
  ...group('fr', I, 'address', ['adresse', 'adresse postale', 'rue']),
  ...group('fr', I, 'postal-code', ['code postal']),
  ...group('fr', I, 'person-name', ['prénom', 'nom de famille', 'nom complet']),
  ...group('fr', I, 'person-name', ['nom'], { rule: 'bare' }),
  ...group('fr', I, 'username', ["nom d'utilisateur", 'identifiant']),
  ...group('fr', I, 'username', ['utilisateur'], { rule: 'bare' }),
  ...group('fr', O, 'benign', ['clé publique', 'clé primaire', 'adresse ip']),
];

const SPANISH: LexiconEntry[] = [
  ...group('es', C, 'password', ['contraseña', 'contraseñas', 'clave', 'clave de acceso', 'palabra de paso', 'frase de contraseña']),
  ...group('es', C, 'pin', ['código PIN', 'número PIN', 'número de PIN', 'código de acceso', 'nip']),
  ...group('es', C, 'otp', ['código de verificación', 'código de confirmación', 'código de un solo uso', 'código de autenticación', 'clave dinámica']),
  ...group('es', C, 'otp', ['código de seguridad'], { rule: 'security-code' }),
  ...group('es', C, 'api-key', ['clave API', 'clave de API', 'clave de la API']),
  ...group('es', C, 'access-token', ['token de acceso', 'token de autenticación']),
  ...group('es', C, 'refresh-token', ['token de actualización']),
  ...group('es', C, 'secret', ['clave secreta', 'secreto']),
  ...group('es', C, 'client-secret', ['secreto del cliente', 'secreto de cliente']),
  ...group('es', C, 'private-key', ['clave privada']),
  ...group('es', C, 'seed-phrase', ['frase de recuperación', 'frase semilla']),
  ...group('es', C, 'credentials', ['credenciales']),
  ...group('es', P, 'card-number', ['número de tarjeta', 'tarjeta de crédito', 'tarjeta de débito', 'número de la tarjeta']),
  ...group('es', P, 'card-expiry', ['fecha de vencimiento', 'fecha de caducidad', 'fecha de expiración', 'vencimiento'], { rule: 'needs-payment' }),
  ...group('es', P, 'bank-account', ['número de cuenta', 'cuenta bancaria', 'clabe']),
  ...group('es', P, 'bank-login', ['banca en línea']),
  ...group('es', I, 'national-id', ['dni', 'nie', 'curp', 'cédula', 'documento de identidad', 'número de identificación', 'número de seguro social', 'seguridad social']),
  ...group('es', I, 'passport', ['pasaporte', 'número de pasaporte']),
  ...group('es', I, 'tax-id', ['nif', 'rfc', 'cuit', 'cuil', 'número de identificación fiscal']),
  ...group('es', I, 'date-of-birth', ['fecha de nacimiento']),
  ...group('es', I, 'driver-licence', ['licencia de conducir', 'carnet de conducir', 'permiso de conducir', 'licencia de manejo']),
  ...group('es', I, 'email', ['correo', 'correo electrónico']),
  ...group('es', I, 'phone', ['teléfono', 'número de teléfono', 'celular', 'móvil']),
  ...group('es', I, 'address', ['dirección', 'domicilio', 'calle']),
  ...group('es', I, 'postal-code', ['código postal']),
  ...group('es', I, 'person-name', ['apellido', 'apellidos', 'nombre completo']),
  ...group('es', I, 'person-name', ['nombre'], { rule: 'bare' }),
  ...group('es', I, 'username', ['nombre de usuario']),
  ...group('es', I, 'username', ['usuario'], { rule: 'bare' }),
  ...group('es', O, 'benign', ['palabra clave', 'palabras clave', 'clave primaria', 'clave pública', 'clave foránea', 'clave de ordenación', 'dirección ip']),
];

const PORTUGUESE: LexiconEntry[] = [
  ...group('pt', C, 'password', ['senha', 'senhas', 'palavra-passe', 'palavra chave de acesso', 'frase senha']),
  ...group('pt', C, 'pin', ['código PIN', 'código de acesso']),
  ...group('pt', C, 'otp', ['código de verificação', 'código de confirmação', 'código de autenticação', 'código único']),
  ...group('pt', C, 'otp', ['código de segurança'], { rule: 'security-code' }),
  ...group('pt', C, 'api-key', ['chave de API', 'chave API', 'chave da API', 'chave de acesso']),
  ...group('pt', C, 'access-token', ['token de acesso', 'token de autenticação']),
  ...group('pt', C, 'refresh-token', ['token de atualização']),
  ...group('pt', C, 'secret', ['chave secreta', 'segredo']),
  ...group('pt', C, 'client-secret', ['segredo do cliente']),
  ...group('pt', C, 'private-key', ['chave privada']),
  ...group('pt', C, 'seed-phrase', ['frase de recuperação', 'frase semente']),
  ...group('pt', C, 'credentials', ['credenciais']),
  ...group('pt', P, 'card-number', ['número do cartão', 'cartão de crédito', 'cartão de débito', 'número de cartão']),
  ...group('pt', P, 'card-expiry', ['data de validade', 'validade', 'data de vencimento'], { rule: 'needs-payment' }),
  ...group('pt', P, 'bank-account', ['número da conta', 'conta bancária', 'dados bancários']),
  ...group('pt', I, 'national-id', ['rg', 'cartão de cidadão', 'número de identidade', 'bilhete de identidade', 'documento de identidade', 'carteira de identidade']),
  ...group('pt', I, 'passport', ['passaporte', 'número do passaporte']),
  ...group('pt', I, 'tax-id', ['cpf', 'cnpj', 'número de contribuinte']),
  ...group('pt', I, 'date-of-birth', ['data de nascimento']),
  ...group('pt', I, 'driver-licence', ['carteira de motorista', 'cnh', 'carta de condução', 'carteira de habilitação']),
  ...group('pt', I, 'email', ['correio eletrônico', 'endereço de email', 'endereço de e-mail']),
  ...group('pt', I, 'phone', ['telefone', 'número de telefone', 'telemóvel']),
  ...group('pt', I, 'address', ['endereço', 'morada', 'rua']),
  ...group('pt', I, 'postal-code', ['cep']),
  ...group('pt', I, 'person-name', ['sobrenome', 'nome completo']),
  ...group('pt', I, 'person-name', ['nome'], { rule: 'bare' }),
  ...group('pt', I, 'username', ['nome de usuário', 'nome de utilizador']),
  ...group('pt', I, 'username', ['utilizador'], { rule: 'bare' }),
  ...group('pt', O, 'benign', ['chave pública', 'chave primária', 'palavra chave', 'palavras chave', 'endereço ip', 'chave pix']),
];

const RUSSIAN: LexiconEntry[] = [
  ...group('ru', C, 'password', ['пароль', 'пароля', 'паролем', 'паролю', 'пароли', 'паролей', 'парольная фраза', 'кодовое слово']),
  ...group('ru', C, 'pin', ['пин', 'пин-код', 'пинкод', 'PIN-код']),
  ...group('ru', C, 'otp', ['одноразовый код', 'одноразовый пароль', 'код подтверждения', 'код из смс', 'СМС-код', 'код проверки', 'код верификации']),
  ...group('ru', C, 'otp', ['код безопасности'], { rule: 'security-code' }),
  ...group('ru', C, 'api-key', ['API-ключ', 'ключ API', 'апи ключ', 'ключ доступа', 'ключа API', 'ключ апи']),
  ...group('ru', C, 'access-token', ['токен', 'токена', 'токеном', 'токен доступа']),
  ...group('ru', C, 'refresh-token', ['токен обновления']),
  ...group('ru', C, 'secret', ['секретный ключ', 'секретного ключа', 'секрет']),
  ...group('ru', C, 'client-secret', ['секрет клиента']),
  ...group('ru', C, 'private-key', ['закрытый ключ', 'закрытого ключа', 'приватный ключ']),
  ...group('ru', C, 'seed-phrase', ['сид-фраза', 'seed-фраза', 'мнемоническая фраза', 'фраза восстановления']),
  ...group('ru', C, 'security-answer', ['ответ на секретный вопрос', 'ответ на контрольный вопрос']),
  ...group('ru', C, 'credentials', ['учётные данные']),
  ...group('ru', P, 'card-number', ['номер карты', 'номер банковской карты', 'номер кредитной карты', 'банковская карта', 'кредитная карта']),
  ...group('ru', P, 'card-security-code', ['CVV-код', 'CVC-код', 'код CVV']),
  ...group('ru', P, 'card-expiry', ['срок действия карты']),
  ...group('ru', P, 'card-expiry', ['срок действия'], { rule: 'needs-payment' }),
  ...group('ru', P, 'bank-account', ['номер счёта', 'расчётный счёт', 'банковский счёт', 'счёт получателя']),
  ...group('ru', I, 'national-id', ['снилс', 'удостоверение личности']),
  ...group('ru', I, 'passport', ['паспорт', 'паспорта', 'номер паспорта', 'серия и номер паспорта', 'загранпаспорт']),
  ...group('ru', I, 'tax-id', ['инн']),
  ...group('ru', I, 'date-of-birth', ['дата рождения', 'день рождения', 'год рождения']),
  ...group('ru', I, 'driver-licence', ['водительское удостоверение', 'водительские права']),
  ...group('ru', I, 'email', ['электронная почта', 'адрес электронной почты', 'эл. почта', 'почта']),
  ...group('ru', I, 'phone', ['телефон', 'номер телефона', 'мобильный телефон']),
  ...group('ru', I, 'address', ['адрес', 'адрес доставки', 'улица']),
  ...group('ru', I, 'postal-code', ['почтовый индекс']),
  ...group('ru', I, 'person-name', ['фамилия', 'отчество', 'фио', 'полное имя']),
  ...group('ru', I, 'person-name', ['имя'], { rule: 'bare' }),
  ...group('ru', I, 'username', ['логин', 'имя пользователя']),
  ...group('ru', I, 'username', ['пользователь'], { rule: 'bare' }),
  ...group('ru', O, 'benign', ['открытый ключ', 'публичный ключ', 'IP-адрес', 'первичный ключ']),
];

// Han/Kana/Hangul terms: matched as substrings of the text with spaces and punctuation removed.
const CHINESE: LexiconEntry[] = [
  ...group('zh', C, 'password', ['密码', '密碼', '口令', '支付密码', '交易密码']),
  ...group('zh', C, 'otp', ['验证码', '驗證碼', '动态码', '動態碼', '校验码', '一次性密码']),
  ...group('zh', C, 'otp', ['安全码', '安全碼'], { rule: 'security-code' }),
  ...group('zh', C, 'api-key', ['api密钥', 'api金鑰', 'api密鑰']),
  ...group('zh', C, 'secret', ['密钥', '密鑰', '秘钥', '秘鑰', '金鑰', '客户端密钥', '用戶端密碼']),
  ...group('zh', C, 'private-key', ['私钥', '私鑰', '私密金鑰']),
  ...group('zh', C, 'access-token', ['令牌', '访问令牌', '訪問令牌', '權杖', '存取權杖']),
  ...group('zh', C, 'refresh-token', ['刷新令牌', '重新整理權杖']),
  ...group('zh', C, 'seed-phrase', ['助记词', '助記詞', '种子短语', '種子短語', '恢复短语', '恢復短語']),
  ...group('zh', C, 'security-answer', ['密保答案', '安全问题答案', '安全問題答案']),
  ...group('zh', C, 'credentials', ['凭据', '憑據', '登录凭证', '登入憑證']),
  ...group('zh', P, 'card-number', ['卡号', '卡號', '银行卡号', '銀行卡號', '信用卡号', '信用卡號', '信用卡', '银行卡', '銀行卡']),
  ...group('zh', P, 'card-expiry', ['有效期'], { rule: 'needs-payment' }),
  ...group('zh', P, 'bank-account', ['银行账号', '銀行帳號', '银行账户', '銀行帳戶', '银行帐号', '开户账号', '收款账号', '收款账户', '收款帐号', '收款帳號']),
  ...group('zh', P, 'bank-login', ['网银', '網銀', '网上银行', '網上銀行']),
  ...group('zh', I, 'national-id', ['身份证', '身份證', '身分證', '身分证', '社会保障号', '社保号', '社會安全號碼']),
  ...group('zh', I, 'passport', ['护照', '護照']),
  ...group('zh', I, 'tax-id', ['税号', '稅號', '纳税人识别号', '納稅人識別號']),
  ...group('zh', I, 'date-of-birth', ['出生日期', '生日', '出生年月']),
  ...group('zh', I, 'driver-licence', ['驾驶证', '駕駛證', '驾照', '駕照']),
  ...group('zh', I, 'email', ['邮箱', '郵箱', '电子邮件', '電子郵件', '电邮', '電郵', '邮件地址', '郵件地址']),
  ...group('zh', I, 'phone', ['电话', '電話', '手机', '手機']),
  ...group('zh', I, 'address', ['地址', '住址']),
  ...group('zh', I, 'postal-code', ['邮编', '郵編', '邮政编码', '郵遞區號']),
  ...group('zh', I, 'person-name', ['姓名', '名字', '全名', '姓氏']),
  ...group('zh', I, 'username', ['用户名', '用戶名', '使用者名称', '使用者名稱', '账号', '帳號', '账户', '帳戶']),
  ...group('zh', O, 'benign', ['公钥', '公鑰', '公开密钥', '公開金鑰', '密码学', '密碼學', '图形验证码', '圖形驗證碼', '图片验证码', '令牌桶', 'ip地址', '钱包地址', '錢包地址']),
];

const JAPANESE: LexiconEntry[] = [
  ...group('ja', C, 'password', ['パスワード', 'ワンタイムパスワード']),
  ...group('ja', C, 'passphrase', ['パスフレーズ', 'パスコード', '合言葉']),
  ...group('ja', C, 'pin', ['暗証番号']),
  ...group('ja', C, 'otp', ['認証コード', '確認コード', '認証番号', 'ワンタイムコード']),
  ...group('ja', C, 'api-key', ['apiキー', 'アクセスキー']),
  ...group('ja', C, 'access-token', ['トークン', 'アクセストークン']),
  ...group('ja', C, 'refresh-token', ['リフレッシュトークン']),
  ...group('ja', C, 'secret', ['シークレット', 'シークレットキー', '秘密の答え']),
  ...group('ja', C, 'client-secret', ['クライアントシークレット']),
  ...group('ja', C, 'private-key', ['秘密鍵', '秘密キー', 'プライベートキー']),
  ...group('ja', C, 'seed-phrase', ['シードフレーズ', 'リカバリーフレーズ', '復元フレーズ', 'ニーモニック']),
  ...group('ja', C, 'credentials', ['認証情報']),
  ...group('ja', P, 'card-number', ['カード番号', 'クレジットカード', 'デビットカード']),
  ...group('ja', P, 'card-security-code', ['セキュリティコード']),
  ...group('ja', P, 'card-expiry', ['有効期限'], { rule: 'needs-payment' }),
  ...group('ja', P, 'bank-account', ['口座番号', '銀行口座']),
  ...group('ja', P, 'bank-login', ['ネットバンキング']),
  ...group('ja', I, 'national-id', ['マイナンバー', '個人番号', '在留カード']),
  ...group('ja', I, 'passport', ['パスポート', '旅券']),
  ...group('ja', I, 'tax-id', ['納税者番号']),
  ...group('ja', I, 'date-of-birth', ['生年月日', '誕生日']),
  ...group('ja', I, 'driver-licence', ['運転免許', '免許証番号']),
  ...group('ja', I, 'email', ['メールアドレス', '電子メール', 'メアド']),
  ...group('ja', I, 'phone', ['電話番号', '携帯番号', '携帯電話']),
  ...group('ja', I, 'address', ['住所']),
  ...group('ja', I, 'postal-code', ['郵便番号']),
  ...group('ja', I, 'person-name', ['氏名', '名前', 'お名前', 'フルネーム']),
  ...group('ja', I, 'username', ['ユーザー名', 'ユーザ名', 'ログインid', 'ログイン名', 'アカウント名']),
  ...group('ja', O, 'benign', ['公開鍵', '公開キー', 'パブリックキー', 'キーワード', 'トークナイザー', 'ipアドレス']),
];

const KOREAN: LexiconEntry[] = [
  ...group('ko', C, 'password', ['비밀번호', '비번', '패스워드', '암호']),
  ...group('ko', C, 'pin', ['핀번호', '핀코드']),
  ...group('ko', C, 'otp', ['인증번호', '인증코드', '확인코드', '일회용코드', 'otp번호']),
  ...group('ko', C, 'otp', ['보안코드'], { rule: 'security-code' }),
  ...group('ko', C, 'api-key', ['api키', '액세스키']),
  ...group('ko', C, 'access-token', ['토큰', '액세스토큰', '접근토큰']),
  ...group('ko', C, 'refresh-token', ['리프레시토큰', '갱신토큰']),
  ...group('ko', C, 'secret', ['비밀키', '시크릿', '시크릿키']),
  ...group('ko', C, 'client-secret', ['클라이언트시크릿']),
  ...group('ko', C, 'private-key', ['개인키', '프라이빗키']),
  ...group('ko', C, 'seed-phrase', ['시드문구', '복구문구', '니모닉']),
  ...group('ko', C, 'credentials', ['자격증명']),
  ...group('ko', P, 'card-number', ['카드번호', '신용카드', '체크카드']),
  ...group('ko', P, 'card-security-code', ['cvc번호', 'cvc코드']),
  ...group('ko', P, 'card-expiry', ['유효기간'], { rule: 'needs-payment' }),
  ...group('ko', P, 'bank-account', ['계좌번호', '은행계좌']),
  ...group('ko', P, 'bank-login', ['인터넷뱅킹']),
  ...group('ko', I, 'national-id', ['주민등록번호', '주민번호', '외국인등록번호', '신분증']),
  ...group('ko', I, 'passport', ['여권']),
  ...group('ko', I, 'tax-id', ['사업자등록번호', '납세자번호']),
  ...group('ko', I, 'date-of-birth', ['생년월일', '생일']),
  ...group('ko', I, 'driver-licence', ['운전면허']),
  ...group('ko', I, 'email', ['이메일', '전자우편', '메일주소']),
  ...group('ko', I, 'phone', ['전화번호', '휴대폰', '휴대전화', '연락처']),
  ...group('ko', I, 'address', ['주소']),
  ...group('ko', I, 'postal-code', ['우편번호']),
  ...group('ko', I, 'person-name', ['성명', '성함']),
  ...group('ko', I, 'person-name', ['이름'], { rule: 'bare' }),
  ...group('ko', I, 'username', ['사용자이름', '사용자명', '아이디', '계정']),
  ...group('ko', O, 'benign', ['공개키', '암호화', '암호학', 'ip주소', '지갑주소', '토큰수', '최대토큰']),
];

/** Every term, all languages. */
/**
 * Secret kinds the first lexicon missed, in English and the hand-written languages: cloud and
 * cluster credential files, pre-shared keys, session cookies of common web frameworks, security
 * questions, seed-phrase wording, abbreviations, one-time-code phrasing and national identifiers.
 */
const MORE: LexiconEntry[] = [
  ...group('en', C, 'password', ['pswrd', 'passwrd', 'paswd', 'passcd'], { scope: 'name' }),
  ...group('en', C, 'access-token', ['tok', 'tkn', 'toke'], { scope: 'name', rule: 'head' }),
  ...group('en', C, 'secret', ['secr', 'scrt'], { scope: 'name' }),
  ...group('en', O, 'benign', ['id rsa pub', 'id ed25519 pub', 'id ecdsa pub', 'pub key', 'public key file']),
  ...group('en', C, 'private-key', ['id rsa file', 'private key file', 'id ecdsa', 'priv k', 'pk pem', 'id rsa', 'id ed25519', 'ssh key', 'ssh private key', 'gpg private key', 'pgp private key', 'pem key', 'pem file contents', 'tls key', 'ssl key', 'certificate key', 'keystore', 'keystore json', 'key store password', 'pfx password', 'p12 password']),
  ...group('en', C, 'cloud-credentials', [
    'kubeconfig', 'kube config', 'service account key', 'service account key file', 'service account json', 'service account json key', 'service account credentials', 'credentials file', 'credentials json',
    'application default credentials', 'key file', 'keyfile', 'storage account key', 'account key', 'shared key', 'sas token', 'dsn', 'client certificate key', 'aws secret',
    'aws secret key', 'aws secret access key',
  ]),
  ...group('en', C, 'pre-shared-key', ['network security key', 'wireless key', 'wireless password', 'psk', 'pre shared key', 'preshared key', 'wifi psk', 'wpa psk', 'ipsec psk', 'vpn key', 'shared secret key']),
  ...group('en', C, 'secret', ['auth'], { rule: 'head' }),
  ...group('en', C, 'secret', ['basic auth', 'redis auth', 'auth string', 'webhook token', 'secret key base', 'signing key', 'app password', 'application password', 'bot token', 'dsn with key']),
  ...group('en', C, 'session', [
    'phpsessid', 'jsessionid', 'connect sid', 'laravel session', 'asp net session', 'asp net sessionid', 'aspnet sessionid', 'asp net session id', 'rails session', 'rack session',
    'django session', 'sessionid cookie', 'session secret', 'remember token', 'remember me token', 'auth cookie', 'cookie header', 'cookie value', 'next auth session token', 'sid cookie',
  ]),
  ...group('en', C, 'otp', [
    'digit code', 'code we sent', 'code we just sent', 'code we texted', 'code we just texted', 'code sent to your phone', 'code sent to your email', 'code from your authenticator',
    'code from the authenticator', 'code from your authenticator app', 'authenticator app code', 'one time code', 'otp code', 'sms otp', 'email otp', 'texted code', 'login code',
    'sign in code', 'security key pin', 'mtan', 'chiptan', 'smstan', 'code we emailed', 'code we emailed you', 'emailed code', 'code sent by email', 'code sent by sms', 'code we sent you',
  ]),
  ...group('en', C, 'otp', ['tan', 'itan'], { scope: 'name' }),
  ...group('en', C, 'refresh-token', ['refresh tok', 'refresh tkn']),
  ...group('en', C, 'seed-phrase', ['backup phrase', 'recovery words', 'backup words', 'wallet words', 'seed words', 'secret words', 'word seed', 'word recovery phrase']),
  ...group('en', C, 'security-answer', [
    'security question', 'security questions', 'secret question', 'security answer', 'answer to your security question', 'answer to the security question', 'answer to your secret question',
    'security question answer', 'secret question answer', 'first pet', "first pet's name", 'name of your first pet', 'name of first pet', 'maiden name', "mother's maiden name", 'mothers maiden name',
    'grew up', 'were you born', 'you were born', 'parents married', 'parents meet', 'parents met', 'first car', 'first school', 'elementary school', 'primary school', 'childhood friend', 'childhood nickname',
    'childhood best friend', 'favorite teacher', 'favourite teacher', 'first job', 'first concert', 'honeymoon', 'oldest sibling', 'first love', 'first boss',
  ], { rule: 'phrase' }),
  ...group('de', C, 'security-answer', ['sicherheitsfrage', 'geheimfrage', 'antwort auf die sicherheitsfrage'], { rule: 'phrase' }),
  ...group('fr', C, 'security-answer', ['question secrète', 'question de sécurité', 'réponse secrète'], { rule: 'phrase' }),
  ...group('es', C, 'security-answer', ['pregunta de seguridad', 'pregunta secreta', 'respuesta secreta'], { rule: 'phrase' }),
  ...group('pt', C, 'security-answer', ['pergunta de segurança', 'pergunta secreta', 'resposta secreta'], { rule: 'phrase' }),
  ...group('it', C, 'security-answer', ['domanda di sicurezza', 'domanda segreta', 'risposta segreta'], { rule: 'phrase' }),
  ...group('nl', C, 'security-answer', ['beveiligingsvraag', 'geheime vraag'], { rule: 'phrase' }),
  ...group('ru', C, 'security-answer', ['секретный вопрос', 'контрольный вопрос', 'ответ на секретный вопрос'], { rule: 'phrase' }),
  ...group('zh', C, 'security-answer', ['密保', '密保问题', '密保答案', '安全问题答案', '密碼提示問題'], { rule: 'phrase' }),
  ...group('ja', C, 'security-answer', ['秘密の質問', '秘密の答え'], { rule: 'phrase' }),
  ...group('ko', C, 'security-answer', ['비밀번호 질문', '보안 질문', '보안질문 답변'], { rule: 'phrase' }),
  ...group('fr', C, 'otp', ['code reçu par sms', 'code envoyé par sms', 'code par sms', 'code sms', 'code à 6 chiffres']),
  ...group('de', C, 'otp', ['code aus der app', 'code per sms']),
  ...group('es', C, 'otp', ['código sms', 'código enviado por sms', 'código de 6 dígitos']),
  ...group('pt', C, 'seed-phrase', ['frase de recuperação', 'frase semente', 'palavras de recuperação']),
  ...group('zh', C, 'seed-phrase', ['助记词', '助記詞', '恢复短语', '私钥']),
  ...group('en', P, 'card-number', ['cc no', 'cc nr', 'card nr', 'pan number'], { scope: 'name' }),
  ...group('en', P, 'card-expiry', ['cc exp', 'ccexp', 'cc expiry', 'cc exp date', 'cc exp month', 'cc exp year'], { scope: 'name' }),
  ...group('en', P, 'card-security-code', ['cid', 'cid code'], { rule: 'needs-payment' }),
  ...group('en', P, 'card-security-code', ['security code on the back', 'digits on the back of your card', 'three digits on the back', '3 digits on the back', 'back of the card', 'back of your card', 'security digits']),
  ...group('en', P, 'card-expiry', ['exp', 'mm yy', 'mm yyyy'], { scope: 'label', rule: 'needs-payment' }),
  ...group('en', P, 'card-number', ['card details', 'card information', 'card info', 'payment card details', 'credit card details', 'card data']),
  ...group('en', P, 'card-number', ['digit number on the front of the card', 'number on the front of the card', 'number on the front of your card']),
  ...group('en', P, 'bank-login', [
    'net banking', 'netbanking', 'internet banking', 'mobile banking', 'e banking', 'ebanking', 'banking password', 'banking passcode', 'banking login', 'net banking password',
    'online banking', 'online banking password', 'online banking passcode', 'upi pin', 'atm pin', 'mpin', 'tpin',
  ]),
  // One-time codes that approve a payment: BLIK (Poland), 3-D Secure, bank app confirmation codes.
  ...group('en', P, 'bank-login', ['blik', 'blik code', 'kod blik', '3d secure code', '3ds code', '3 d secure', 'securecode', 'verified by visa', 'payment otp', 'transaction otp', 'transaction code']),
  ...group('en', P, 'bank-login', ['log in to your bank', 'sign in to your bank', 'login to your bank', 'your bank login', 'bank account login', 'banking app login']),
  ...group('de', P, 'bank-login', ['onlinebanking', 'online banking pin', 'onlinebanking pin', 'banking pin']),
  ...group('en', I, 'phone', ['whatsapp', 'whatsapp number', 'telegram number', 'signal number', 'viber number', 'wechat id', 'line id', 'sms number']),
  ...group('en', I, 'national-id', [
    'codice fiscale', 'bsn', 'burgerservicenummer', 'pesel', 'tc kimlik', 'tc kimlik no', 'kimlik no', 'kimlik numarasi', 'cpf', 'cnpj', 'nik', 'nomor induk kependudukan', 'ktp', 'mykad',
    'hkid', 'emirates id', 'iqama', 'personnummer', 'henkilotunnus', 'hetu', 'cpr nummer', 'fodselsnummer', 'isikukood', 'rodne cislo', 'oib', 'jmbg', 'egn', 'amka',
    'national insurance', 'medicare number', 'health insurance number', 'tax file number', 'tfn', 'voter id', 'last 4 of ssn', 'last four of ssn',
  ]),
];

/** Languages whose compounds are one word (a term also matches as the tail of a longer word). */
const COMPOUNDING: ReadonlySet<string> = new Set(['de', 'nl', 'sv', 'da', 'nb', 'no', 'is', 'fi', 'hu', 'et']);

/** The generated sign-in vocabulary of 42 languages (see `data/translations.ts`). */
const TRANSLATED: LexiconEntry[] = TRANSLATED_TERMS.map((t) => ({
  term: t.term,
  lang: t.lang,
  class: t.class,
  concept: t.concept as Concept,
  // A one-word "name" (Όνομα, نام, Tên) is a person's name only as the whole label, not in "Όνομα έργου".
  rule: t.concept === 'person-name' && !t.term.trim().includes(' ') ? ('bare' as const) : ('strong' as const),
  scope: t.scope,
  // Languages that write compounds as one word (Einmalpasswort, eenmalig wachtwoord, engångslösenord).
  suffix: COMPOUNDING.has(t.lang) && !t.term.includes(' ') && t.class === 'credential',
}));

/**
 * Hand romanisations of the password word in scripts whose automatic transliteration drops vowels
 * or is not what people type in identifiers (Hebrew, Arabic, Persian, Hindi, Bengali, Thai, Greek).
 */
const ROMANISED: LexiconEntry[] = [
  ...group('vi', C, 'otp', ['mã xác minh', 'mã xác nhận', 'mã otp'], { scope: 'label' }),
  ...group('vi', P, 'card-number', ['số thẻ', 'số thẻ tín dụng'], { scope: 'label' }),
  ...group('he', C, 'password', ['sisma', 'sismah', 'sismat'], { scope: 'name' }),
  ...group('en', I, 'email', ['e mail cim', 'email cim', 'adresa de e mail', 'adresa de email', 'correu electronic', 'correu', 'e posta', 'e posta adresi', 'sahkoposti', 'sahkopostiosoite', 'e mailova adresa']),
  ...group('he', I, 'email', ['אימייל', 'דוא"ל', 'דואר אלקטרוני', 'כתובת דוא"ל', 'כתובת אימייל']),
  ...group('ar', I, 'email', ['البريد الإلكتروني', 'البريد الالكتروني', 'بريد إلكتروني', 'الايميل']),
  ...group('fa', I, 'email', ['ایمیل', 'پست الکترونیک', 'رایانامه']),
  ...group('bn', I, 'email', ['ইমেল', 'ইমেইল', 'ইমেল ঠিকানা']),
  ...group('hi', I, 'email', ['ईमेल', 'ईमेल पता', 'ई-मेल']),
  ...group('th', I, 'email', ['อีเมล', 'อีเมล์']),
  ...group('ar', C, 'password', ['kalimat al murur', 'kalimat almurur', 'kalimat sir', 'kalimat al sir', 'kalima sirriya', 'kelmat el sir'], { scope: 'name' }),
  ...group('fa', C, 'password', ['ramz oboor', 'ramz obur', 'ramze oboor', 'ramze obur', 'kalameh oboor'], { scope: 'name' }),
  ...group('hi', C, 'password', ['pasvard', 'paasvard', 'guptshabd', 'kootshabd'], { scope: 'name' }),
  ...group('bn', C, 'password', ['pasoyard', 'pasward'], { scope: 'name' }),
  ...group('th', C, 'password', ['rahat phan', 'rahatphan', 'rahas phan'], { scope: 'name' }),
  ...group('el', C, 'password', ['kodikos prosvasis', 'kwdikos prosvasis', 'synthimatiko'], { scope: 'name' }),
  ...group('ru', C, 'password', ['parol', 'parolya', 'parol korystuvacha'], { scope: 'name' }),
  ...group('zh', C, 'password', ['mima'], { scope: 'name' }),
  ...group('ja', C, 'password', ['pasuwado', 'pasuwaado'], { scope: 'name' }),
  ...group('ko', C, 'password', ['bimilbeonho', 'bimil beonho', 'bibeon'], { scope: 'name' }),
];

/** Every term, all languages. */
export const LEXICON: readonly LexiconEntry[] = [...ENGLISH, ...GERMAN, ...FRENCH, ...SPANISH, ...PORTUGUESE, ...RUSSIAN, ...CHINESE, ...JAPANESE, ...KOREAN, ...MORE, ...ROMANISED, ...TRANSLATED];

/**
 * Languages whose noun phrases put the head first ("longueur du mot de passe", "длина пароля",
 * "طول كلمة المرور"): a term there is a modifier when an about-word (`NEUTRAL_BEFORE`) precedes it.
 * In the other languages (English, German, the Nordic languages, Finnish, Hungarian, Turkish, the
 * Indic and East Asian languages) the head comes last: a term is a modifier when a noun follows it
 * in the label (`password_strength_rule`, `token_color`, `Jelszó hossza`).
 */
export const HEAD_INITIAL: ReadonlySet<string> = new Set([
  'fr', 'es', 'pt', 'it', 'ro', 'ca', 'gl', 'vi', 'id', 'ms', 'th', 'ar', 'he', 'fa', 'el', 'ru', 'uk', 'be', 'pl', 'cs', 'sk', 'bg', 'sr', 'hr', 'sl', 'mk', 'lt', 'lv', 'sq', 'tl', 'sw',
]);

/**
 * Words that may follow a secret in a label and leave the secret the head: the label still asks
 * for it (`password_confirmation`, `token_value`, `pin_number`, `password2`, `api_key_here`).
 * Any other noun after it is the head instead (`password_strength_rule`, `api_key_rotation_days`).
 */
export const PRESERVING_AFTER: readonly string[] = [
  'value', 'val', 'input', 'text', 'txt', 'string', 'str', 'entry', 'field', 'data', 'code', 'number', 'num', 'no', 'nr', 'digits', 'answer', 'response', 'reply', 'content',
  'contents', 'here', 'please', 'again', 'repeat', 'repeated', 'retype', 'confirm', 'confirmation', 'confirmed', 'verify', 'verification', 'check', 'new', 'old', 'current', 'plain',
  'plaintext', 'raw', 'base64', 'b64', 'hex', 'pem', 'json', 'key', 'secret', 'token', 'login', 'one', 'two', 'x', 'v', 'optional', 'required', 'only', 'copy', 'paste', 'pasted', 'it',
  'bestatigung', 'wiederholung', 'eingabe', 'wert', 'bevestiging', 'herhaling', 'bekraftelse', 'bekraeftelse', 'bekreftelse', 'vahvistus', 'megerosites', 'tekrar', 'dogrulama',
  'value1', 'value2', 'base', 'sms', 'otp', 'totp', 'mfa', '2fa', 'n',
];

/** Words that, after a personal term, keep the data personal (a part of an identifier is still personal): `ssn_last4`. */
export const PRESERVING_AFTER_PERSONAL: readonly string[] = ['last', 'last4', 'first', 'part', 'partial', 'suffix', 'prefix', 'ending', 'masked', 'digits', 'line', 'line1', 'line2', 'id', 'photo', 'image', 'scan', 'copy', 'picture', 'pic', 'front', 'back', 'upload'];

/**
 * Words that end the part of a label a term can be the head of (prepositions, relative pronouns,
 * participles): in "Label shown next to the CVV input" the head is `label`, and the CVV is its
 * complement; in "Password for the admin account" nothing comes between `password` and `for`.
 */
export const LABEL_BOUNDARY: readonly string[] = [
  'of', 'for', 'to', 'from', 'with', 'by', 'in', 'on', 'at', 'about', 'next', 'shown', 'used', 'that', 'which', 'where', 'when', 'via', 'into', 'per', 'under', 'over', 'above', 'below', 'after',
  'before', 'holding', 'containing', 'without', 'de', 'du', 'des', 'del', 'della', 'dello', 'degli', 'di', 'da', 'do', 'dos', 'das', 'van', 'von', 'vom', 'zur', 'zum', 'für', 'fur', 'pour', 'para',
  'por', 'per', 'för', 'til', 'af', 'av', 'z', 'ze', 'od', 'dla', 'для', 'от', 'из', 'к', 'у', 'на',
];

/**
 * Words at the head of a label that let a secret in its complement stay the thing asked for:
 * "Value of your API key", "Confirmation du mot de passe", "Enter your password for GitHub".
 */
/**
 * Common nouns that, after a secret in a label, are the label's head (`cvv_attempts`,
 * `token_background`, `api_key_rotation_days`), next to `NEUTRAL_AFTER`, `ORDINARY_NOUNS` and the
 * lexicon's own words. A word the classifier does not know is never taken for a head: when in doubt
 * the label still asks for the secret (`password_utente` is an Italian user password).
 */
export const HEAD_NOUNS: readonly string[] = [
  'attempt', 'attempts', 'background', 'border', 'days', 'minutes', 'seconds', 'hours', 'weeks', 'months', 'years', 'window', 'period', 'reminder', 'reminders', 'history', 'log', 'logs',
  'audit', 'event', 'events', 'alert', 'alerts', 'warning', 'warnings', 'error', 'errors', 'tooltip', 'placeholder', 'help', 'scanning', 'scanner', 'validator', 'validation', 'entropy',
  'salt', 'encoding', 'charset', 'visibility', 'mask', 'masking', 'display', 'preview', 'position', 'order', 'sort', 'group', 'class', 'level', 'tier', 'quota', 'fee', 'rate', 'ratio',
  'percentage', 'owner', 'owners', 'author', 'creator', 'issuer', 'audience', 'source', 'target', 'destination', 'channel', 'queue', 'topic', 'bucket', 'table', 'column', 'index',
  'cache', 'store', 'registry', 'rotation', 'renewal', 'refresh', 'revocation', 'request', 'requests', 'usage', 'stats', 'statistics', 'metrics', 'report', 'summary', 'page', 'screen',
  'dialog', 'modal', 'button', 'link', 'color', 'colour', 'size', 'width', 'height', 'style', 'font', 'icon', 'emoji', 'sound', 'animation', 'layout', 'count', 'total', 'amount',
  // "length", "policy", "rule", "strength" in the other head-final languages
  'länge', 'lange', 'richtlinie', 'regel', 'regeln', 'stärke', 'starke', 'lengte', 'beleid', 'sterkte', 'längd', 'langd', 'policy', 'regler', 'styrka', 'længde', 'laengde', 'lengde', 'styrke',
  'pituus', 'käytäntö', 'kaytanto', 'säännöt', 'saannot', 'vahvuus', 'hossza', 'hossz', 'házirend', 'hazirend', 'szabály', 'szabaly', 'erőssége', 'erossege', 'uzunluğu', 'uzunlugu', 'uzunluk',
  'politikası', 'politikasi', 'kuralı', 'kurali', 'kuralları', 'kurallari', 'gücü', 'gucu', 'लंबाई', 'नीति', 'নীতি', 'দৈর্ঘ্য', 'lengd', 'pikkus',
  // romanised East Asian about-words (`mima_changdu`, `pasuwado_nagasa`, `bimilbeonho_gili`)
  'changdu', 'zuixiao', 'zuida', 'geshu', 'guize', 'celue', 'qiangdu', 'nagasa', 'mojisu', 'gili', 'jeongchaek',
];

/**
 * Compounds of a modifier and a head that name a secret in any order and any supported language,
 * two words apart at most ("card number", "Numer karty", "Номер картки", "Kod weryfikacyjny",
 * "Doğrulama kodu", "mã xác minh"), or written as one word ending in the head (`Bekreftelseskode`,
 * `Vahvistuskoodi`, `verificatiecode`). The words are the ones the sign-in and checkout screens of
 * these languages use (see `data/translations.ts` for the source of most of them).
 */
export const COMPOUNDS: readonly { readonly term: string; readonly class: FieldClass; readonly concept: Concept; readonly modifiers: readonly string[]; readonly heads: readonly string[]; readonly oneWordStems?: readonly string[] }[] = [
  {
    term: 'card number',
    class: 'payment',
    concept: 'card-number',
    modifiers: [
      'card', 'carta', 'carte', 'tarjeta', 'targeta', 'cartão', 'cartao', 'karte', 'kaart', 'karty', 'karta', 'kartu', 'kart', 'kartı', 'karti', 'kort', 'kortin', 'kortets', 'kártya', 'kartya',
      'cardului', 'kartice', 'kartica', 'karte', 'карта', 'карты', 'карти', 'картки', 'картка', 'карточки', 'κάρτας', 'καρτας', 'כרטיס', 'הכרטיס', 'البطاقة', 'بطاقة', 'کارت', 'kad', 'บัตร', 'कार्ड', 'কার্ড',
    ],
    heads: ['number', 'pan', 'no', 'nr', 'num', 'numero', 'número', 'nummer', 'numer', 'numéro', 'номер', 'numarası', 'numarasi', 'szám', 'szam', 'număr', 'numar', 'numărul', 'numarul', 'מספר', 'رقم', 'شماره', 'nomor', 'nombor', 'หมายเลข', 'αριθμός', 'αριθμος', 'broj', 'číslo', 'cislo', 'नंबर', 'संख्या', 'নম্বর', 'numbers'],
    oneWordStems: ['karten', 'kaart', 'kort', 'kártya', 'kartya', 'kortti'],
  },
  {
    term: 'verification code',
    class: 'credential',
    concept: 'otp',
    modifiers: [
      'verification', 'verify', 'confirmation', 'confirm', 'authentication', 'auth', 'sms', 'otp', 'login', '2fa', 'mfa', 'authenticator',
      'weryfikacyjny', 'weryfikacji', 'potwierdzenia', 'sms', 'подтверждения', 'підтвердження', 'перевірки', 'проверки', 'верификации', 'доступа', 'bestätigung', 'bestatigung', 'verifizierung', 'vérification',
      'verification', 'confirmation', 'verificación', 'verificacion', 'confirmación', 'confirmacion', 'verificação', 'verificacao', 'confirmação', 'confirmacao', 'verifica', 'conferma', 'verificatie',
      'bevestiging', 'verifiering', 'verifieringskod', 'bekräftelse', 'bekraftelse', 'bekreftelse', 'bekræftelse', 'bekraeftelse', 'verifisering', 'vahvistus', 'varmennus', 'ellenőrző', 'ellenorzo',
      'megerősítő', 'megerosito', 'doğrulama', 'dogrulama', 'onay', 'pengesahan', 'verifikasi', 'אימות', 'التحقق', 'تحقق', 'تأیید', 'تایید', 'επαλήθευσης',
      'επαληθευσης', 'επιβεβαίωσης', 'ověřovací', 'overovaci', 'potvrzovací', 'potvrzovaci', 'overovací', 'verificare', 'confirmare', 'autentificare', 'सत्यापन', 'যাচাইকরণ', 'যাচাই',
    ],
    heads: ['code', 'numbers', 'digits', 'kod', 'kód', 'koodi', 'kode', 'código', 'codigo', 'codice', 'codi', 'cod', 'код', 'kodu', 'קוד', 'رمز', 'کد', 'κωδικός', 'κωδικος', 'kodas', 'kods', 'pin', 'कोड', 'কোড'],
    oneWordStems: ['bekreftelses', 'bekræftelses', 'bekraeftelses', 'bekräftelse', 'bekraftelse', 'verifiserings', 'verifierings', 'vahvistus', 'varmennus', 'verificatie', 'bevestigings', 'bestätigungs', 'bestatigungs', 'verifizierungs', 'einmal', 'engångs', 'engangs', 'zugangs'],
  },
];

/**
 * Words that say a code was delivered to the user (sent, texted, received...): in a description or a
 * message, a code word and one of these in the same sentence is a one-time code ("Saisissez le code
 * que nous venons de vous envoyer", "Escribe el código que te enviamos por SMS").
 */
export const DELIVERY_WORDS: readonly string[] = [
  'sent', 'send', 'texted', 'emailed', 'received', 'receive', 'sms', 'text message', 'authenticator',
  'envoye', 'envoyé', 'envoyer', 'envoyons', 'recu', 'reçu', 'enviamos', 'enviado', 'enviada', 'recibido', 'recibiste', 'enviei', 'enviamos', 'recebido', 'recebeu',
  'ricevuto', 'inviato', 'inviata', 'gestuurd', 'ontvangen', 'verstuurd', 'gesendet', 'erhalten', 'geschickt', 'zugeschickt', 'skickat', 'sendt', 'mottatt', 'modtaget', 'lähetetty',
  'wysłany', 'wyslany', 'wysłaliśmy', 'otrzymany', 'отправили', 'отправленный', 'полученный', 'пришел', 'пришёл', 'надіслали', 'gönderilen', 'gönderdiğimiz', 'dikirim', 'diterima',
];

/**
 * Services whose name before `key`, `pat`, `pass` or `creds` makes the label a credential
 * (`stripe_key`, `openai_key`, `jira_pat`): the key of a service grants access to it. Taken from the
 * providers of `src/secrets/data/known-formats.ts` and the commonest API providers.
 */
export const PROVIDERS: readonly string[] = [
  'aws', 'amazon', 'gcp', 'google', 'gemini', 'azure', 'openai', 'anthropic', 'claude', 'mistral', 'cohere', 'groq', 'replicate', 'huggingface', 'hf', 'deepseek', 'perplexity', 'openrouter',
  'elevenlabs', 'stripe', 'paypal', 'square', 'braintree', 'adyen', 'plaid', 'twilio', 'sendgrid', 'mailgun', 'mailchimp', 'postmark', 'resend', 'slack', 'discord', 'telegram', 'github', 'gitlab',
  'bitbucket', 'npm', 'pypi', 'docker', 'dockerhub', 'heroku', 'vercel', 'netlify', 'cloudflare', 'digitalocean', 'linode', 'supabase', 'firebase', 'algolia', 'mapbox', 'notion', 'airtable',
  'jira', 'atlassian', 'confluence', 'linear', 'asana', 'trello', 'figma', 'datadog', 'sentry', 'pagerduty', 'newrelic', 'grafana', 'segment', 'mixpanel', 'amplitude', 'shopify', 'zendesk',
  'intercom', 'hubspot', 'salesforce', 'dropbox', 'okta', 'auth0', 'databricks', 'snowflake', 'pinecone', 'weaviate', 'qdrant', 'tavily', 'serpapi', 'brave', 'exa', 'firecrawl', 'browserbase',
  'vault', 'doppler', 'pulumi', 'terraform', 'tailscale', 'ngrok', 'zoom', 'spotify', 'youtube', 'twitter', 'x', 'reddit', 'openweather', 'weather', 'maps', 'stability', 'midjourney', 'runway',
];

export const PRESERVING_HEAD: readonly string[] = [
  'value', 'input', 'entry', 'answer', 'response', 'confirmation', 'confirm', 'repeat', 'retype', 'verify', 'enter', 'type', 'paste', 'provide', 'give', 'your', 'new', 'old', 'current',
  'confirmer', 'confirmation', 'saisir', 'saisissez', 'entrez', 'indiquez', 'nouveau', 'nouvelle', 'ancien', 'ancienne', 'actuel', 'actuelle', 'répéter', 'repeter',
  'confirmar', 'confirmacion', 'confirmacao', 'introduce', 'introduzca', 'ingrese', 'ingresa', 'escriba', 'digite', 'informe', 'nuevo', 'nueva', 'novo', 'nova', 'actual', 'atual', 'repetir',
  'conferma', 'inserisci', 'nuova', 'vecchia', 'attuale', 'ripeti', 'bestatigung', 'wiederholung', 'neues', 'neue', 'altes', 'aktuelles', 'bevestig', 'bevestiging', 'nieuw', 'nieuwe', 'huidig',
  'potwierdz', 'potwierdzenie', 'nowe', 'stare', 'obecne', 'podaj', 'wpisz', 'подтверждение', 'подтвердите', 'новый', 'старый', 'текущий', 'введите', 'укажите', 'повторите',
  'valor', 'valeur', 'wert', 'waarde', 'wartosc', 'значение', 'respuesta', 'reponse', 'resposta', 'antwort', 'risposta', 'ответ',
];

/**
 * Words that, right after a sensitive term, make the field *about* the thing rather than the
 * thing itself: `password_min_length`, `token_count`, `email_template`, `address_type`.
 * Never `number`, `code`, `value`, `confirmation`, `new`: `pin_number`, `password_confirmation`
 * still hold the secret.
 */
export const NEUTRAL_AFTER: readonly string[] = [
  // en
  'length', 'len', 'min', 'max', 'minimum', 'maximum', 'count', 'counter', 'policy', 'policies', 'rule', 'rules', 'requirement',
  'requirements', 'strength', 'complexity', 'reset', 'expiry', 'expiration', 'expires', 'expire', 'expired', 'expiring', 'age',
  'ttl', 'lifetime', 'rotation', 'changed', 'updated', 'created', 'set', 'type', 'types', 'kind', 'format', 'version', 'endpoint',
  'url', 'uri', 'link', 'budget', 'limit', 'limits', 'usage', 'used', 'cost', 'price', 'score', 'template', 'field', 'fields',
  'column', 'header', 'location', 'path', 'file', 'filename', 'dir', 'directory', 'env', 'variable', 'var', 'scope', 'scopes',
  'permission', 'permissions', 'manager', 'generator', 'protected', 'required', 'enabled', 'disabled', 'mode', 'method',
  'provider', 'helper', 'strategy', 'status', 'state', 'validity', 'check', 'checker', 'meter', 'storage', 'algorithm', 'algo',
  'size', 'bits', 'characters', 'chars', 'digits', 'question', 'questions', 'server', 'host', 'port', 'service', 'subject',
  'body', 'list', 'settings', 'config', 'configuration', 'domain', 'frequency', 'consent', 'banner', 'balance', 'issuer', 'brand',
  'network', 'color', 'colour', 'image', 'icon', 'theme', 'style', 'model', 'notifications', 'preferences', 'visibility',
  'visible', 'timeout', 'duration', 'interval', 'country', 'hash', 'digest', 'checksum',
  // other languages (head-final compounds are rare outside en/de; the head-first ones use NEUTRAL_BEFORE)
  'vergessen', 'oublié', 'olvidada', 'olvidado', 'esquecida', 'esqueceu', 'länge', 'richtlinie', 'anforderungen',
];

/** Words that neutralise only a credential term, because they name or identify the secret: `api_key_name`, `token_id`. */
export const NEUTRAL_AFTER_CREDENTIAL: readonly string[] = ['name', 'names', 'id', 'ids', 'label', 'title', 'alias', 'identifier', 'fingerprint', 'prefix', 'suffix', 'hint', 'hints', 'last', 'last4', 'masked', 'description'];

/**
 * Words that, before a sensitive term (skipping function words), make the field about it:
 * `max_tokens`, `min_password_length`, `forgot_password_email`, and the head-first languages:
 * `longueur du mot de passe`, `longitud de la contraseña`, `длина пароля`.
 */
export const NEUTRAL_BEFORE: readonly string[] = [
  'max', 'min', 'maximum', 'minimum', 'num', 'forgot', 'forgotten', 'lost',
  'anzahl', 'mindestlänge', 'maximale', 'minimale',
  'longueur', 'taille', 'politique', 'règles', 'règle', 'exigences', 'force', 'complexité', 'caractères', 'expiration', 'maximal', 'minimal',
  'longitud', 'tamaño', 'política', 'reglas', 'requisitos', 'fortaleza', 'complejidad', 'cantidad', 'máximo', 'mínimo', 'máxima', 'mínima', 'olvidó', 'olvidé', 'caducidad', 'vencimiento',
  'comprimento', 'tamanho', 'regras', 'força', 'complexidade', 'quantidade', 'esqueceu', 'esqueci', 'validade', 'expiração',
  'длина', 'количество', 'политика', 'требования', 'сложность', 'максимальная', 'максимальный', 'максимальное', 'максимум',
  'минимальная', 'минимальный', 'минимальное', 'минимум', 'забыли', 'забыл', 'действия', 'символов',
  'lunghezza', 'politica', 'regole', 'requisiti', 'lungimea', 'lungime', 'politica', 'longitud', 'довжина', 'довжини', 'політика', 'вимоги', 'długość', 'dlugosc', 'polityka', 'zasady',
  'délka', 'delka', 'dĺžka', 'dlzka', 'pravidla', 'дължина', 'dužina', 'duzina', 'dolžina', 'ilgis', 'garums', 'μήκος', 'μηκος', 'πολιτική', 'אורך', 'מדיניות', 'طول', 'سياسة', 'قواعد',
  'đo', 'dai', 'panjang', 'kebijakan', 'aturan', 'llargada',
];

/**
 * Words that, up to three words before a term, make it the complement of something else:
 * "Env var holding the DB password" names an environment variable, not a password.
 */
export const NEUTRAL_RELATIVE: readonly string[] = ['holding', 'holds', 'containing', 'contains', 'storing', 'stores', 'enthalt', 'contenant', 'contiene', 'contém', 'содержащий', 'содержащая'];

/** Words skipped when looking back from a term (articles, possessives, prepositions). */
export const FUNCTION_WORDS: readonly string[] = [
  'of', 'the', 'a', 'an', 'your', 'my', 'for', 'to', 'our', 'their',
  'de', 'du', 'des', 'd', 'la', 'le', 'les', 'l', 'votre', 'vos', 'ton', 'ta', 'sa', 'mon', 'ma',
  'del', 'el', 'los', 'las', 'su', 'sus', 'tu', 'tus', 'mi',
  'da', 'do', 'das', 'dos', 'o', 'os', 'seu', 'sua', 'seus', 'suas', 'meu', 'minha',
  'der', 'die', 'dem', 'den', 'ihr', 'ihre', 'ihres', 'ihren', 'dein', 'deine', 'deinen', 'ein', 'eine', 'einen', 'für',
  'ваш', 'ваша', 'ваше', 'вашу', 'вашего', 'вашей', 'ваши', 'для', 'от', 'к', 'и', 'свой', 'свою', 'своего', 'из', 'с', 'в', 'на', 'по',
  'di', 'il', 'lo', 'gli', 'della', 'delle', 'dello', 'dei', 'degli', 'al', 'alla', 'tuo', 'tua', 'tuoi', 'suo', 'vostro', 'vostra', 'het', 'een', 'uw', 'je', 'jouw', 'twoj', 'twoja',
  'swoj', 'swoja', 'twój', 'swój', 'tvoje', 'vase', 'vaše', 'al', 'el', 'sa', 'si', 'och', 'og', 'ja', 'és', 'es', 've', 'và', 'dan', 'anda', 'kamu', 'ваш', 'твій', 'ваш',
];

/** Words that, shortly before a term in prose, negate it: "we never ask for your password". */
export const NEGATORS: readonly string[] = [
  'not', 'never', 'no', 'without', 'dont', 'nicht', 'kein', 'keine', 'keinen', 'niemals', 'nie', 'ohne',
  'ne', 'pas', 'jamais', 'sans', 'nunca', 'sin', 'jamás', 'não', 'sem', 'не', 'никогда', 'без', 'ни',
  'non', 'mai', 'senza', 'nooit', 'niet', 'geen', 'zonder', 'nigdy', 'bez', 'ніколи', 'ні', 'asla', 'hiçbir', 'hic', 'aldrig', 'inte', 'ej', 'utan', 'aldri', 'ikke', 'uden', 'uten',
  'älä', 'ala', 'ei', 'ilman', 'nikdy', 'soha', 'nem', 'nélkül', 'niciodată', 'niciodata', 'nu', 'fără', 'fara', 'ποτέ', 'ποτε', 'μην', 'δεν', 'χωρίς', 'אל', 'לא', 'לעולם', 'ללא',
  'لا', 'أبدا', 'ابدا', 'ممنوع', 'بدون', 'هرگز', 'نه', 'بدون', 'jangan', 'tidak', 'bukan', 'tanpa', 'tak', 'không', 'khong', 'đừng', 'dung', 'chớ', 'mai', 'sense', 'ніколи',
];

/**
 * Negations that follow the word they negate (verb-final languages: Hindi, Bengali): "पासवर्ड कभी न डालें".
 */
export const NEGATORS_AFTER: readonly string[] = ['न', 'नहीं', 'मत', 'না', 'নয়', 'নয'];

/** Words that end the look-back for a negator: "not your email but your password". */
export const CONTRAST: readonly string[] = ['but', 'instead', 'rather', 'aber', 'sondern', 'mais', 'plutôt', 'pero', 'sino', 'mas', 'но', 'а'];

/**
 * Nouns that identify a label as naming an ordinary thing. A label with one of them (or with any
 * lexicon match) is "identified": its description and the form's message are not consulted.
 */
export const ORDINARY_NOUNS: readonly string[] = [
  'project', 'repo', 'repository', 'branch', 'commit', 'file', 'filename', 'path', 'directory', 'folder', 'url', 'uri', 'link',
  'endpoint', 'host', 'hostname', 'port', 'domain', 'server', 'region', 'zone', 'environment', 'env', 'count', 'amount', 'quantity',
  'qty', 'total', 'price', 'cost', 'budget', 'limit', 'size', 'length', 'width', 'height', 'depth', 'weight', 'duration', 'timeout',
  'interval', 'delay', 'date', 'time', 'day', 'month', 'year', 'week', 'hour', 'minute', 'deadline', 'schedule', 'timezone', 'color',
  'colour', 'language', 'locale', 'description', 'comment', 'comments', 'note', 'notes', 'message', 'subject', 'summary', 'title',
  'label', 'tag', 'tags', 'category', 'topic', 'type', 'kind', 'mode', 'format', 'version', 'model', 'temperature', 'tokens', 'max',
  'min', 'maximum', 'minimum', 'city', 'country', 'state', 'province', 'company', 'organization', 'organisation', 'org', 'team',
  'department', 'role', 'job', 'reason', 'feedback', 'rating', 'score', 'priority', 'severity', 'status', 'level', 'option',
  'options', 'choice', 'preference', 'preferences', 'setting', 'settings', 'query', 'search', 'keyword', 'keywords', 'filter',
  'sort', 'order', 'page', 'offset', 'cursor', 'database', 'table', 'column', 'schema', 'index', 'template', 'theme', 'style',
  'font', 'image', 'photo', 'icon', 'bio', 'website', 'homepage', 'recipient', 'greeting', 'headline', 'caption',
  'product', 'sku', 'flavor', 'flavour', 'seat', 'room', 'guests', 'attendees', 'event', 'location', 'place', 'venue',
  'destination', 'origin', 'departure', 'arrival', 'currency', 'unit', 'units', 'percentage', 'percent', 'ratio', 'threshold',
  'steps', 'epochs', 'batch', 'prompt', 'instructions', 'agree', 'consent', 'enabled', 'notifications', 'newsletter',
  'interests', 'hobbies', 'experience', 'skills', 'issue', 'ticket', 'bug', 'pull', 'request', 'workspace', 'channel', 'cluster',
  'namespace', 'bucket', 'region', 'image', 'tier', 'plan', 'size', 'frequency', 'reminder', 'calendar', 'meeting', 'agenda',
  'recipe', 'ingredients', 'servings', 'genre', 'author', 'book', 'movie', 'song', 'artist', 'album', 'playlist', 'team',
  'branch', 'tool', 'task', 'goal', 'step', 'stage', 'phase', 'confirm', 'confirmation', 'approve', 'approval', 'decision',
  'projet', 'fichier', 'chemin', 'proyecto', 'archivo', 'ruta', 'projeto', 'arquivo', 'caminho', 'projekt', 'datei', 'pfad',
  'проект', 'файл', 'путь', 'ville', 'pays', 'ciudad', 'país', 'cidade', 'stadt', 'land', 'город', 'страна',
  '项目', '文件', '路径', '名称', '名稱', '数量', '數量', '日期', '时间', '時間', '城市', '国家', '國家', '描述', '备注', '備註', '标题',
  '標題', '评论', '評論', '类型', '類型', '语言', '語言', 'プロジェクト', 'ファイル', '数量', '日付', '都市', '説明', '備考',
  'タイトル', 'コメント', '種類', '言語', '프로젝트', '파일', '경로', '수량', '날짜', '시간', '도시', '국가', '설명', '메모', '제목',
  '댓글', '유형', '언어',
];

/**
 * Words that say nothing about what a field holds (`value`, `input`, `answer`, `code`, `key`).
 * Only a field whose label is made of these (or has no label) takes its class from the form's
 * message, e.g. `value` under "Enter your GitHub token".
 */
export const GENERIC_WORDS: readonly string[] = [
  'value', 'val', 'input', 'text', 'txt', 'answer', 'response', 'reply', 'entry', 'field', 'data', 'string', 'str', 'code', 'key', 'seed', 'question', 'phrase',
  'number', 'num', 'no', 'id', 'info', 'information', 'detail', 'details', 'item', 'param', 'parameter', 'arg', 'argument',
  'content', 'contents', 'result', 'res', 'x', 'y', 'z', 'q', 'v', 's', 'it', 'thing', 'enter', 'please', 'here', 'one',
  'valeur', 'valor', 'wert', 'eingabe', 'antwort', 'réponse', 'respuesta', 'resposta', 'texto', 'texte', 'dato', 'datos', 'dados',
  'donnée', 'données', 'daten', 'código', 'schlüssel', 'clé', 'chave', 'ключ', 'значение', 'ответ', 'ввод', 'код', 'данные',
  'текст', 'поле', 'номер', 'numéro', 'número', 'nummer', 'entrada', 'champ', 'campo', 'feld',
  '值', '输入', '輸入', '答案', '回答', '内容', '代码', '代碼', '键', '鍵', '数值', '數值', '値', '入力', '答え', 'コード', 'キー',
  '값', '입력', '답변', '응답', '내용', '코드', '키', '번호', '号码', '號碼', '番号',
];

/** Words in a form that make a `pin_code` a postal code (see the decision above). */
export const ADDRESS_WORDS: readonly string[] = [
  'address', 'street', 'city', 'town', 'state', 'district', 'locality', 'landmark', 'postal', 'postcode', 'zip', 'area', 'village',
  'province', 'house', 'flat', 'apartment', 'building', 'delivery', 'shipping', 'post', 'office', 'taluk', 'tehsil', 'pincode',
  '地址', '住所', '주소', 'адрес', 'adresse', 'dirección', 'endereço',
];

/** Words in a form that make it a payment form (for `security code`, `expiry`...). */
export const PAYMENT_WORDS: readonly string[] = [
  'card', 'cards', 'credit', 'debit', 'payment', 'payments', 'pay', 'billing', 'checkout', 'purchase', 'visa', 'mastercard', 'amex',
  'tarjeta', 'carte', 'karte', 'cartão', 'карта', 'карты', 'картой', 'оплата', 'paiement', 'pago', 'pagamento', 'zahlung', 'bezahlung',
  '卡', 'カード', '카드', '支付', '付款', '決済', '支払', '결제',
];

/**
 * Han/Kana/Hangul words that, right after a term, make the field about it (length, policy, count...).
 * A genitive particle in between is skipped: `パスワードの長さ`, `密码的长度`, `비밀번호의 길이`.
 */
export const CJK_NEUTRAL_AFTER: readonly string[] = [
  '最小', '最大', '最短', '最长', '最長', '文字数', '字符数', '位数', '최소', '최대', '글자',
  '长度', '長度', '策略', '政策', '强度', '強度', '要求', '规则', '規則', '规范', '数量', '數量', '数', '數', '上限', '下限',
  '有效期', '过期', '過期', '期限', '位数', '位數', '类型', '類型', '种类', '格式', '文件', '路径', '余额', '餘額',
  '長さ', 'ポリシー', '要件', 'ルール', '制限', '有効期限', '桁数', '種類', 'タイプ', '形式', 'ファイル',
  'を忘れ', '忘れ', 'テンプレート', '本文', '件名',
  '길이', '정책', '규칙', '강도', '개수', '제한', '만료', '유효기간', '유형', '종류', '형식', '파일', '경로', '찾기', '분실',
];

/** Han/Kana/Hangul words that, right after a credential term, name or identify the secret instead of holding it. */
export const CJK_NEUTRAL_AFTER_CREDENTIAL: readonly string[] = ['名称', '名稱', '名', 'id', '提示', 'ヒント', '名前', '이름', '힌트'];

/** Han/Kana/Hangul words that, right before a term, make the field about it (max, min, forgot). */
export const CJK_NEUTRAL_BEFORE: readonly string[] = ['最大', '最小', '最长', '最長', '最短', '忘记', '忘記', '找回', '최대', '최소', 'ความยาว', 'จำนวน', 'นโยบาย'];

/** Possessive prefixes ignored when checking whether a Han/Kana/Hangul label is bare ("당신의 이름"). */
export const CJK_POSSESSIVES: readonly string[] = ['您的', '你的', '请输入', '請輸入', 'あなたの', 'ご', 'お', '당신의', '귀하의', '고객'];

/** Chinese negations that, right before a term, negate it ("请勿输入密码"). */
export const CJK_NEGATORS: readonly string[] = ['不要', '请勿', '請勿', '勿', '无需', '無需', '不需要', '不会', '不會', '禁止', 'อย่า', 'ไม่', 'ห้าม'];

/** Japanese and Korean negations, which follow the verb after the noun ("パスワードを入力しないでください", "비밀번호를 입력하지 마세요"). */
export const CJK_NEGATORS_AFTER: readonly string[] = ['ないで', 'しないで', 'しないでください', '禁止', '不要', '마세요', '마십시오', '말아', '하지마', '금지', 'ไม่ต้อง'];
