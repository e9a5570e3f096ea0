import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../src/policy/index.js';
import { analyzeUrl, UrlFinding } from '../../src/url/index.js';

const policy = defaultPolicy.base;
const codes = (url: string) => analyzeUrl(url, policy).findings.map((f) => f.code);

describe('personal data in URLs', () => {
  it.each([
    'https://app.example.com/signup?email=jane.doe@example.com',
    'https://app.example.com/u?user=JANE.DOE%40EXAMPLE.COM', // percent-encoded, upper case
    'https://app.example.com/welcome/jane.doe%40example.org', // in the path
    'https://app.example.com/#email=jane@example.net', // in the fragment
    'https://app.example.com/verify?address=%22jane%20doe%22%40example.com', // quoted local part
    'https://app.example.com/track?uid=john.smith(at)example.org', // "(at)" obfuscation
    `https://app.example.com/unsubscribe?u=${btoa('ops-team@corp.example')}`, // base64
    'https://app.example.com/signup?email=ops-team@corp.example', // a reserved test domain is still an address
    'https://app.example.com/call?phone=%2B14155550123', // E.164
    'https://app.example.com/call/+44 20 7946 0958',
    'https://app.example.com/c?n=(415)%20555-0123', // North American
    'https://app.example.com/c?n=06%2012%2034%2056%2078', // national, grouped
    'https://app.example.com/c?mobile=4155550123', // a phone-named parameter
    'https://app.example.com/kyc?ssn=123-45-6789',
    'https://app.example.com/kyc?national_id=AB123456C',
    'https://app.example.com/kyc?passport=X12345678',
    'https://app.example.com/kyc?dob=1990-04-12',
    'https://app.example.com/?ip=203.0.113.42',
    'https://app.example.com/?geo=48.8584,2.2945',
  ])('%s', (url) => {
    expect(codes(url)).toContain(UrlFinding.personalData);
  });

  it('blocks an e-mail address in an OIDC login_hint (the spec forbids PII in the URL)', () => {
    const a = analyzeUrl(
      'https://login.microsoftonline.com/common/oauth2/v2.0/authorize?client_id=0&response_type=code&scope=openid&' +
        'login_hint=jane%40example.com',
      policy,
    );
    expect(a.verdict).toBe('block');
    expect(a.findings.find((f) => f.code === UrlFinding.personalData)?.message).toContain('login hint');
  });

  it.each([
    'https://unpkg.com/@modelcontextprotocol/sdk@1.32.2/dist/esm/types.js', // a version after @
    'https://medium.com/@jane_example/how-we-built-it',
    'https://www.amazon.com/dp/B08N5WRWNW/ref=sr_1_3?qid=1700000000&sr=8-3', // numeric ids
    'https://example.com/events/2024-04-12', // a date that is not a birth date
    'https://example.com/v/1.2.3.4567', // a version
    'https://www.google.com/maps/place/M/@48.1373932,11.5732598,17z',
    'https://app.example.com/invoices/ab8213af-6f46-4aa8-a4bc-beeb59034e9a',
  ])('%s carries no personal data', (url) => {
    expect(codes(url)).not.toContain(UrlFinding.personalData);
  });
});

describe('payment data in URLs', () => {
  it.each([
    'https://app.example.com/pay?card=4111111111111111&exp=12%2F30',
    'https://app.example.com/pay?cc=4242%204242%204242%204242',
    'https://app.example.com/pay?pan=5555555555554444',
    'https://app.example.com/pay?n=4242-4242-4242-4242', // card grouping, neutral name
    'https://app.example.com/pay?cvc=123',
    'https://app.example.com/payout?iban=DE89370400440532013000',
    'https://app.example.com/payout?account_number=000123456789&routing_number=110000000',
  ])('%s', (url) => {
    expect(codes(url)).toContain(UrlFinding.paymentData);
  });

  it.each([
    'https://app.asana.com/-/oauth_authorize?client_id=3534261069744404&response_type=code', // a bare numeric id
    'https://app.example.com/pay?card=4111111111111112', // fails Luhn
    'https://app.example.com/?ref=DE00370400440532013000', // fails mod 97
  ])('%s carries no payment data', (url) => {
    expect(codes(url)).not.toContain(UrlFinding.paymentData);
  });
});

describe('postal addresses (issue 12)', () => {
  it.each([
    'https://delivery.example.net/track?address=1600+Amphitheatre+Parkway&zip=94043',
    'https://forms.example.net/apply?street=221B+Baker+Street&postcode=NW1+6XE',
    'https://checkout.example.de/versand?strasse=Unter+den+Linden+77&plz=10117',
    'https://boutique.example.fr/livraison?adresse=55+Rue+du+Faubourg&cp=75008',
    'https://pay.example.net/checkout?billing_address=1+Infinite+Loop&billing_zip=95014',
    'https://maps.example.net/p#address=4059+Mt+Lee+Dr&zip=90068',
  ])('%s', (url) => {
    expect(codes(url)).toContain(UrlFinding.personalData);
  });

  it('does not read other addresses, or a zip code alone, as a postal address', () => {
    expect(codes('https://explorer.example.net/?wallet_address=0x52908400098527886E0F7030069857D2E4169EE7')).not.toContain(
      UrlFinding.personalData,
    );
    expect(codes('https://status.example.net/?ip_address_family=4')).not.toContain(UrlFinding.personalData);
    expect(codes('https://www.weather.gov/forecast?zip=94043')).not.toContain(UrlFinding.personalData);
    expect(codes('https://shop.example.net/?address=new')).not.toContain(UrlFinding.personalData);
  });
});
