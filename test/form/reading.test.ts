import { describe, expect, it } from 'vitest';
import { auditForm, classifyField, type FieldClass } from '../../src/form/index.js';
import { decodeEscapes, deobfuscate, identifierWords } from '../../src/form/normalize.js';
import { defaultPolicy } from '../../src/policy/index.js';

const str = { type: 'string' };
const classOf = (name: string, property: unknown = str, message?: string): FieldClass => classifyField(name, property, message).class;
const verdictOf = (params: unknown) => auditForm(params, defaultPolicy.base).verdict;

describe('the head of the label decides', () => {
  it.each([
    'password_strength_rule',
    'token_color',
    'secret_santa_budget',
    'api_key_rotation_days',
    'otp_length',
    'cvv_attempts',
    'session_timeout_minutes',
    'credential_provider_name',
  ])('%s asks for something else', (name) => expect(classOf(name)).toBe('ordinary'));

  it.each([
    'stripe_key',
    'openai_key',
    'storage_secret',
    'redis_auth',
    'db_pass',
    'password_confirmation',
    'pin_number',
    'password2',
    'sentry_dsn',
    'kubeconfig',
    'wifi_psk',
  ])('%s grants access', (name) => expect(classOf(name)).toBe('credential'));

  it('reads a title the same way, and a secret after a preposition as a complement', () => {
    expect(classOf('x', { type: 'string', title: 'Password strength rule' })).toBe('ordinary');
    expect(classOf('x', { type: 'string', title: 'Label shown next to the CVV input' })).toBe('ordinary');
    expect(classOf('x', { type: 'string', title: 'Password for the admin account' })).toBe('credential');
    expect(classOf('x', { type: 'string', title: 'Value of your API key' })).toBe('credential');
  });

  it('models modifier + head compounds in other languages', () => {
    expect(classOf('a', { type: 'string', title: 'Numer karty' })).toBe('payment');
    expect(classOf('a', { type: 'string', title: 'Kod weryfikacyjny' })).toBe('credential');
    expect(classOf('a', { type: 'string', title: 'Bekreftelseskode' })).toBe('credential');
    expect(classOf('a', { type: 'string', title: 'Jelszó hossza' })).toBe('ordinary');
    expect(classOf('a', { type: 'string', title: 'Longueur du mot de passe' })).toBe('ordinary');
    expect(classOf('password_utente')).toBe('credential');
  });
});

describe('negation and instructions are not requests', () => {
  it.each([
    ['en', 'Your favorite integer (do not give us your phone number, pin, or other sensitive info)'],
    ['en', 'Never paste API keys, tokens or passwords into this field.'],
    ['it', 'Non inserire mai la tua password in questo campo.'],
    ['uk', 'Не вводьте сюди пароль чи PIN-код.'],
    ['ja', 'ここにパスワードを入力しないでください。'],
    ['hi', 'यहाँ अपना पासवर्ड कभी न डालें।'],
  ])('%s: %s', (_lang, description) => {
    expect(classOf('integer', { type: 'integer', description })).toBe('ordinary');
  });

  it('a contrast ends the negation', () => {
    expect(classOf('value', { type: 'string', description: 'not your email but your password' })).toBe('credential');
  });
});

describe('descriptions and form-level texts when the label names nothing', () => {
  it('takes the class the description asks for', () => {
    expect(classOf('input', { type: 'string', description: 'Your Gmail app password' })).toBe('credential');
    expect(classOf('entry', { type: 'string', description: 'The 6-digit code we just texted you' })).toBe('credential');
    expect(classOf('response', { type: 'string', description: 'What is your mother’s maiden name?' })).toBe('credential');
  });

  it('blocks unreadable fields of a form whose message, title or option titles ask for a secret', () => {
    const fields = { first: { type: 'string', title: 'First' }, second: { type: 'string', title: 'Second' } };
    expect(
      verdictOf({
        message: 'Enter your Salesforce password and security token below',
        requestedSchema: { type: 'object', properties: fields },
      }),
    ).toBe('block');
    expect(
      verdictOf({ message: 'Continue', requestedSchema: { type: 'object', title: 'OpenAI API key', properties: { entry: str } } }),
    ).toBe('block');
    expect(verdictOf({ message: 'Continue', requestedSchema: { type: 'object', properties: fields } })).toBe('allow');
  });

  it('keeps personal data of the message to neutral labels only', () => {
    expect(
      auditForm({ message: 'What is your name?', requestedSchema: { type: 'object', properties: { value: str } } }, defaultPolicy.base)
        .fields[0]?.class,
    ).toBe('personal');
    expect(
      auditForm(
        { message: 'Lieferadresse', requestedSchema: { type: 'object', properties: { ort: { type: 'string', title: 'Ort' } } } },
        defaultPolicy.base,
      ).fields[0]?.class,
    ).toBe('ordinary');
  });
});

describe('type matters both ways', () => {
  it('a number can hold a PIN, CVV or OTP; a boolean or a closed choice cannot carry a secret', () => {
    expect(classOf('pin', { type: 'integer' })).toBe('credential');
    expect(classOf('cvv', { type: 'integer' }, 'Pay now')).toBe('payment');
    expect(classOf('remember_password', { type: 'boolean' })).toBe('ordinary');
    expect(classOf('auth_method', { type: 'string', enum: ['password', 'otp'] })).toBe('ordinary');
  });

  it('a run of digit selects collects a PIN when the form asks for one, a run of seed words always', () => {
    const digits = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];
    const run = Object.fromEntries([1, 2, 3, 4].map((i) => [`d${i}`, { type: 'string', enum: digits }]));
    expect(verdictOf({ message: 'Enter your 4-digit PIN, one digit per box', requestedSchema: { type: 'object', properties: run } })).toBe(
      'block',
    );
    expect(verdictOf({ message: 'Rate each part from 0 to 9', requestedSchema: { type: 'object', properties: run } })).toBe('allow');
    const words = ['abandon', 'ability', 'able', 'about', 'above', 'absent', 'absorb', 'abstract'];
    const seedRun = Object.fromEntries([1, 2, 3, 4].map((i) => [`w${i}`, { type: 'string', enum: words }]));
    expect(verdictOf({ message: 'Pick words', requestedSchema: { type: 'object', properties: seedRun } })).toBe('block');
  });
});

describe('defaults and examples', () => {
  const form = (properties: object, required?: string[]) => ({
    message: 'Settings',
    requestedSchema: { type: 'object', properties, ...(required ? { required } : {}) },
  });

  it('a default that embeds credentials makes the field sensitive', () => {
    expect(verdictOf(form({ database_url: { type: 'string', default: 'postgres://app:' + 'S3cretPass@db.internal:5432/app' } }))).toBe(
      'block',
    );
    expect(verdictOf(form({ conn: { type: 'string', default: 'Server=tcp:sql;Database=app;' + 'Password=Yukon900;' } }))).toBe('block');
    expect(verdictOf(form({ setting: { type: 'string', description: 'Example: sk_live_' + '4eC39HqLyjWDarjtT1zdp7dc' } }))).toBe('block');
  });

  it('an invalid default of an optional field is a warning; of a required field, an error', () => {
    const optional = auditForm(
      form({ title: str, link: { type: 'string', format: 'uri', default: 'example.com' } }, ['title']),
      defaultPolicy.base,
    );
    expect(optional.verdict).toBe('warn');
    expect(optional.findings.find((f) => f.field === 'link')?.code).toBe('W_SCHEMA_DEFAULT');
    expect(verdictOf(form({ link: { type: 'string', format: 'uri', default: 'example.com' } }, ['link']))).toBe('block');
    expect(verdictOf(form({ site: { type: 'string', format: 'uri', default: 'localhost:8080/hooks' } }, []))).toBe('warn');
  });
});

describe('evasion is normalised', () => {
  it('decodes escapes and drops invisible characters', () => {
    expect(decodeEscapes('\\u0070assword &#112;ass %70ass pass\\x77ord')).toBe('password pass pass password');
    expect(deobfuscate('pass\u200bword to\u200dken pass\u00adword', false)).toBe('password token password');
  });

  it.each(['p4ssw0rd', 'pa$$word', 's3cr3t', 't0k3n', 'p\u0430ssword', 'passw\u03bfrd', 'p_a_s_s_w_o_r_d', 'PaSsWoRd', 'pass\u200bword'])(
    '%s reads as a secret',
    (name) => {
      expect(classOf(name)).toBe('credential');
    },
  );

  it('keeps ordinary identifiers apart', () => {
    expect(identifierWords('x509_cert')).toEqual(['x', '509', 'cert']);
    expect(identifierWords('ec2_instance')).toEqual(['ec', '2', 'instance']);
    expect(classOf('mp3_url')).toBe('ordinary');
  });

  it('reads titles written with confusable or full-width letters', () => {
    expect(classOf('field', { type: 'string', title: 'P\u0430ssw\u043erd' })).toBe('credential');
    expect(classOf('field', { type: 'string', title: 'ＡＰＩ　Ｋｅｙ' })).toBe('credential');
  });
});

describe('languages from a data source', () => {
  it.each([
    ['pl', 'Hasło'],
    ['tr', 'Şifre'],
    ['nl', 'Wachtwoord'],
    ['sv', 'Lösenord'],
    ['fi', 'Salasana'],
    ['el', 'Κωδικός πρόσβασης'],
    ['he', 'סיסמה'],
    ['ar', 'كلمة المرور'],
    ['hi', 'पासवर्ड'],
    ['th', 'รหัสผ่าน'],
    ['vi', 'Mật khẩu'],
    ['id', 'Kata sandi'],
  ])('%s: %s is a password', (_lang, title) => {
    expect(classOf('f', { type: 'string', title })).toBe('credential');
  });

  it.each(['haslo', 'sifre', 'parol', 'mima', 'pasuwado', 'bimilbeonho', 'kata_sandi', 'mat_khau'])(
    'identifier %s is a password',
    (name) => {
      expect(classOf(name)).toBe('credential');
    },
  );
});

describe('the generated vocabulary', () => {
  it('is what scripts/refresh-form-lexicon.mjs makes from the pinned @clerk/localizations', async () => {
    const { execFileSync } = await import('node:child_process');
    const out = execFileSync(process.execPath, ['scripts/refresh-form-lexicon.mjs', '--check'], {
      cwd: new URL('../../', import.meta.url),
      encoding: 'utf8',
    });
    expect(out).toMatch(/up to date \(\d+ terms, (\d+) languages\)/);
    expect(Number(/(\d+) languages/.exec(out)![1])).toBeGreaterThanOrEqual(25);
  });
});
