import { describe, expect, it } from 'vitest';
import { auditForm, classifyField, type FieldClass } from '../../src/form/index.js';
import { defaultPolicy } from '../../src/policy/index.js';
import { compactText, identifierWords, normalizeText, textPhrases } from '../../src/form/normalize.js';

const str = { type: 'string' };
const base = defaultPolicy.base;
const classOf = (name: string, property: unknown = str, message?: string): FieldClass => classifyField(name, property, message).class;

describe('normalisation and word splitting', () => {
  it.each([
    ['apiKey', ['api', 'key']],
    ['APIKey', ['api', 'key']],
    ['API_KEY', ['api', 'key']],
    ['api-key', ['api', 'key']],
    ['api.key', ['api', 'key']],
    ['mot_de_passe', ['mot', 'de', 'passe']],
    ['motDePasse', ['mot', 'de', 'passe']],
    ['password2', ['password', '2']],
    ['2FACode', ['2', 'fa', 'code']],
    ['cvv2', ['cvv', '2']],
    ['XMLHttpRequest', ['xml', 'http', 'request']],
    ['contraseña', ['contrasena']],
    ['Schlüssel', ['schlussel']],
    ['Straße', ['strasse']],
    ['ПИН-код', ['пин', 'код']],
    ['API-ключ', ['api', 'ключ']],
    ['PINコード', ['pin', 'コード']],
  ])('%s → %j', (name, words) => {
    expect(identifierWords(name)).toEqual(words);
  });

  it('folds width and case with NFKC, keeping Japanese sound marks', () => {
    expect(normalizeText('ＰＡＳＳＷＯＲＤ')).toBe('password');
    expect(normalizeText('ﾊﾟｽﾜｰﾄﾞ')).toBe('パスワード');
    expect(compactText('API 密钥 ')).toBe('api密钥');
  });

  it('splits prose into phrases at punctuation and brackets', () => {
    expect(textPhrases('Your password (min 8 characters). Thanks!')).toEqual([
      ['your', 'password'],
      ['min', '8', 'characters'],
      ['thanks'],
    ]);
  });
});

describe('credential words in nine languages', () => {
  it.each([
    ['password', 'en'],
    ['passwd', 'en'],
    ['api_key', 'en'],
    ['accessToken', 'en'],
    ['client_secret', 'en'],
    ['seed_phrase', 'en'],
    ['otp', 'en'],
    ['mot_de_passe', 'fr'],
    ['motDePasse', 'fr'],
    ['jeton', 'fr'],
    ['contraseña', 'es'],
    ['contrasena', 'es'],
    ['clave_secreta', 'es'],
    ['senha', 'pt'],
    ['palavra-passe', 'pt'],
    ['Kennwort', 'de'],
    ['Passwort', 'de'],
    ['Benutzerpasswort', 'de'],
    ['geheimzahl', 'de'],
    ['пароль', 'ru'],
    ['пароля', 'ru'],
    ['токен', 'ru'],
    ['密码', 'zh'],
    ['密碼', 'zh'],
    ['验证码', 'zh'],
    ['私钥', 'zh'],
    ['パスワード', 'ja'],
    ['ﾊﾟｽﾜｰﾄﾞ', 'ja'],
    ['暗証番号', 'ja'],
    ['비밀번호', 'ko'],
    ['인증번호', 'ko'],
  ])('%s (%s) is a credential', (name) => {
    expect(classOf(name)).toBe('credential');
  });

  it.each([
    ['Mot de passe', 'fr'],
    ['Contraseña', 'es'],
    ['Senha', 'pt'],
    ['Kennwort', 'de'],
    ['Пароль', 'ru'],
    ['密码', 'zh'],
    ['密碼', 'zh'],
    ['パスワード', 'ja'],
    ['비밀번호', 'ko'],
  ])('a title %s (%s) makes an opaque field a credential, quoted in the reason', (title) => {
    const report = classifyField('field_1', { type: 'string', title });
    expect(report.class).toBe('credential');
    expect(report.reasons.some((r) => r.startsWith('title:'))).toBe(true);
  });
});

describe('payment and personal words', () => {
  it.each([
    'card_number',
    'CVV',
    'cvc',
    'iban',
    'routing_number',
    'account_number',
    'bank_login',
    'kreditkartennummer',
    'numero_de_carte',
    '卡号',
    'カード番号',
    '카드번호',
    'номер карты',
  ])('%s is payment', (name) => {
    expect(classOf(name)).toBe('payment');
  });

  it.each([
    'ssn',
    'national_id',
    'passport_number',
    'tax_id',
    'date_of_birth',
    'drivers_license',
    'email',
    'phone',
    'username',
    'first_name',
    'address',
    'geburtsdatum',
    'date_de_naissance',
    'fecha_de_nacimiento',
    'cpf',
    'инн',
    '身份证号',
    'マイナンバー',
    '주민등록번호',
  ])('%s is personal', (name) => {
    expect(classOf(name)).toBe('personal');
  });
});

describe('benign look-alikes stay ordinary', () => {
  it.each([
    'max_tokens',
    'token_count',
    'token_budget',
    'num_tokens',
    'tokens',
    'tokenizer',
    'keyword',
    'keyboard',
    'secretary',
    'public_key',
    'publicKey',
    'password_min_length',
    'min_password_length',
    'password_policy',
    'passwordless',
    'key_name',
    'api_key_name',
    'token_id',
    'primary_key',
    'sort_key',
    'api_version',
    'api_endpoint',
    'secret_santa_name',
    'card_title',
    'gift_card_message',
    'credit_score',
    'seed',
    'client_id',
    'access_key_id',
    'cookie_consent',
    'boarding_pass',
    'pass_rate',
    'ip_address',
    'project_name',
    'user_count',
    'palabra_clave',
    'Passwortlänge',
    'longueur_du_mot_de_passe',
    'длина_пароля',
    '密码长度',
    '密码学',
    '公钥',
    'トークン数',
    'パスワードの長さ',
    '公開鍵',
    '암호화',
    '토큰 수',
    '공개 키',
  ])('%s', (name) => {
    expect(classifyField(name, str)).toEqual({ name, class: 'ordinary', reasons: [] });
  });

  it('reads forgot_password_email as an email (personal), not a password', () => {
    expect(classifyField('forgot_password_email', str)).toEqual({
      name: 'forgot_password_email',
      class: 'personal',
      reasons: ['name:email'],
    });
  });

  it('keeps password confirmations and new passwords credential', () => {
    for (const name of ['password_confirmation', 'confirm_password', 'new_password', 'password2', 'passwortbestätigung'])
      expect(classOf(name)).toBe('credential');
  });
});

describe('decisions on ambiguous terms', () => {
  it('pin_code is a PIN alone, a postal code when the title mentions an area or address', () => {
    expect(classOf('pin_code')).toBe('credential');
    expect(classOf('pin_code', { type: 'string', title: 'PIN code of your delivery area' })).toBe('personal');
    expect(classOf('pin')).toBe('credential');
  });

  it('one-word pincode is read from the form: a PIN, unless address words make it the postal code', () => {
    expect(classOf('pincode')).toBe('credential');
    expect(classOf('pincode', { type: 'string', title: 'Pincode' }, 'Inloggen')).toBe('credential');
    expect(classOf('pincode', { type: 'string', title: 'Pincode', description: 'Your 4-digit PIN' })).toBe('credential');
    expect(classOf('pincode', { type: 'string', title: 'Pincode' }, 'Check if we deliver to you')).toBe('personal');
    // Delivery words in the message of a card form do not make a PIN a postal code.
    expect(classOf('pin_code', str, 'Your new debit card ships in 3 days: choose its PIN code')).toBe('credential');
    expect(classOf('pincode', str, 'We deliver your card tomorrow; set a pincode for it')).toBe('credential');
    expect(classOf('pincode', { type: 'string', description: '6-digit postal code of the delivery address' })).toBe('personal');
    const form = (pincode: unknown, siblings: Record<string, unknown>) =>
      auditForm({ message: 'Where should we ship?', requestedSchema: { type: 'object', properties: { ...siblings, pincode } } }, base);
    const withCity = form({ type: 'integer', title: 'Pincode' }, { city: str, state: str });
    expect(withCity.fields.find((f) => f.name === 'pincode')?.class).toBe('personal');
    // Hindi address words around पिन कोड make it the postal code too.
    const hindi = auditForm(
      {
        message: 'नया पता जोड़ें',
        requestedSchema: {
          type: 'object',
          properties: { pata: { type: 'string', title: 'पता' }, pin_code: { type: 'string', title: 'पिन कोड' } },
        },
      },
      base,
    );
    expect(hindi.fields.find((f) => f.name === 'pin_code')?.class).toBe('personal');
  });

  it('Italian CAP is a postal code among address words, any other cap alone', () => {
    expect(classOf('cap', { type: 'string', title: 'CAP', description: 'Codice di avviamento postale' })).toBe('personal');
    expect(classOf('cap', { type: 'number', title: 'Spending cap (USD)' })).toBe('ordinary');
    const it = auditForm(
      {
        message: 'Indirizzo di spedizione',
        requestedSchema: {
          type: 'object',
          properties: { citta: { type: 'string', title: 'Città' }, cap: { type: 'string', title: 'CAP' } },
        },
      },
      base,
    );
    expect(it.fields.find((f) => f.name === 'cap')?.class).toBe('personal');
  });

  it('Nordic PIN words are PINs; a hardware pin is not', () => {
    for (const title of ['PIN-kod', 'Pinkode', 'PIN-koodi']) expect(classOf('x1', { type: 'string', title })).toBe('credential');
    expect(classOf('gpio_pin', { type: 'integer', title: 'GPIO pin' })).toBe('ordinary');
  });

  it('a key head with a privacy qualifier is a private key, in brackets, in either order, in several languages', () => {
    for (const title of [
      'Deploy key (private)',
      'Deploy key [private]',
      'Key (private)',
      'Private deploy key',
      'Deploy key - private part',
      'SSH-Schlüssel (privat)',
      'Privater Deploy-Schlüssel',
      'Clé SSH (privée)',
      'Clé de déploiement privée',
      'Chiave privata SSH',
      'Chave SSH (privada)',
      'SSH-sleutel (privé)',
      'Klucz prywatny SSH',
      'SSH özel anahtarı',
    ])
      expect(classOf('deploy_key', { type: 'string', title }), title).toBe('credential');
    for (const title of [
      'Deploy key',
      'Deploy key (public)',
      'Deploy key title',
      'Deploy key (private) title',
      'Notes (private)',
      'Key results (private)',
      'Private key path',
    ])
      expect(classOf('k1', { type: 'string', title }), title).toBe('ordinary');
  });

  it('a key described by an OpenSSH public-key prefix is a public key, even in a form about SSH keys', () => {
    const audit = auditForm(
      {
        message: 'Add new SSH key',
        requestedSchema: {
          type: 'object',
          properties: { key: { type: 'string', title: 'Key', description: 'Begins with ssh-ed25519 or ssh-rsa' } },
        },
      },
      base,
    );
    expect(audit.fields[0]?.class).toBe('ordinary');
  });

  it('a bare name is a person name; a name titled as a thing is not', () => {
    expect(classOf('name')).toBe('personal');
    expect(classOf('name', { type: 'string', title: 'Project name' })).toBe('ordinary');
    expect(classOf('display', { type: 'string', title: 'Your name' })).toBe('personal');
  });

  it('user is a username only as the head of the label', () => {
    expect(classOf('db_user')).toBe('personal');
    expect(classOf('user_agent')).toBe('ordinary');
  });

  it('expiry is payment only in a payment form (card words in the message count as form context)', () => {
    expect(classOf('expiry')).toBe('ordinary');
    expect(classOf('expiry', str, 'Create an API key')).toBe('ordinary');
    expect(classOf('expiry', str, 'Enter your credit card details')).toBe('payment');
  });

  it('security code is a card code in a payment form, a 2FA code otherwise', () => {
    expect(classOf('security_code')).toBe('credential');
    expect(classOf('security_code', str, 'Pay with your card')).toBe('payment');
  });
});

describe('signals other than words', () => {
  it('format password and writeOnly make any field a credential', () => {
    expect(classifyField('value', { type: 'string', format: 'password' })).toMatchObject({
      class: 'credential',
      reasons: ['format:password'],
    });
    expect(classifyField('data', { type: 'string', writeOnly: true })).toMatchObject({ class: 'credential', reasons: ['writeOnly'] });
  });

  it('a secret-shaped default makes a field a credential, reported by kind only', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlX2V4YW1wbGU';
    const report = classifyField('note', { type: 'string', default: jwt });
    expect(report).toEqual({ name: 'note', class: 'credential', reasons: ['default:jwt'] });
    expect(classifyField('note', { type: 'string', default: 'sk_live_' + 'A1b2C3d4E5f6G7h8' }).reasons).toEqual(['default:api-key']);
  });

  it('a Luhn-valid card-number default makes a field payment; a random number does not', () => {
    expect(classOf('ref', { type: 'string', default: '4111-1111-1111-1111' })).toBe('payment');
    expect(classOf('ref', { type: 'string', default: '4111-1111-1111-1112' })).toBe('ordinary');
  });

  it('an email format makes a field personal', () => {
    expect(classifyField('to', { type: 'string', format: 'email' })).toEqual({ name: 'to', class: 'personal', reasons: ['format:email'] });
  });
});

describe('description and message are context, not labels', () => {
  it('uses the description when the labels name nothing', () => {
    expect(classOf('field_1', { type: 'string', description: 'Your Stripe secret key' })).toBe('credential');
    expect(classOf('auth', { type: 'string', description: 'Paste your personal access token' })).toBe('credential');
  });

  it('ignores the description when the labels already name the field', () => {
    expect(classOf('email', { type: 'string', description: 'Used to reset your password' })).toBe('personal');
    expect(classOf('repository', { type: 'string', description: 'Pushed with your GitHub token' })).toBe('ordinary');
  });

  it('ignores negated mentions in a description or title', () => {
    expect(classOf('nickname', { type: 'string', description: 'We will never ask for your password.' })).toBe('ordinary');
    expect(classOf('nickname', { type: 'string', title: 'Nickname (not your password)' })).toBe('ordinary');
    expect(classOf('remark', { type: 'string', title: '备注（请勿填写密码）' })).toBe('ordinary');
  });

  it('a message about a token makes a generic free-entry field a credential', () => {
    expect(classifyField('value', str, 'Enter your GitHub token')).toEqual({
      name: 'value',
      class: 'credential',
      reasons: ['message:token'],
    });
    expect(classOf('code', str, 'We sent a verification code to your phone')).toBe('credential');
    expect(classOf('value', str, '请输入您的访问令牌')).toBe('credential');
  });

  it('the message never turns a labelled, a typed or a choice field into a credential', () => {
    expect(classOf('email', { type: 'string', format: 'email' }, 'Enter your GitHub token')).toBe('personal');
    expect(classOf('city', str, 'Enter your GitHub token')).toBe('ordinary');
    expect(classOf('value', { type: 'boolean' }, 'Enter your GitHub token')).toBe('ordinary');
    expect(classOf('value', { type: 'string', enum: ['a', 'b'] }, 'Enter your GitHub token')).toBe('ordinary');
  });
});

describe('what an answer can carry caps the class', () => {
  it('a yes/no field is ordinary whatever its label, and says why', () => {
    expect(classifyField('remember_password', { type: 'boolean' })).toEqual({
      name: 'remember_password',
      class: 'ordinary',
      reasons: ['name:password', 'type:boolean'],
    });
  });

  it('a choice cannot carry a secret but can reveal personal data', () => {
    expect(classOf('otp_channel', { type: 'string', enum: ['sms', 'email'] })).toBe('ordinary');
    expect(classOf('birth_year', { type: 'string', enum: ['1990', '1991'] })).toBe('personal');
  });
});
