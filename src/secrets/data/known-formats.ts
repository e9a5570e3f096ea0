/**
 * Known secret formats, as data: `[rule, pattern]`. Key prefixes match by prefix and charset with a
 * minimum body length, never an exact length, so a provider that lengthens its keys is still seen.
 *
 * Sources:
 * - secretlint's recommended preset (`@secretlint/secretlint-rule-preset-recommend` 13.1.0, MIT,
 *   Copyright (c) 2020 azu): the prefixes and charsets of its rules for AWS, GCP, GitHub, GitLab,
 *   npm, Slack, SendGrid, Shopify, Stripe, OpenAI, Anthropic, Groq, Hugging Face, Linear, Notion,
 *   1Password, Grafana, HashiCorp Vault, Vercel, Databricks, Docker, Figma, Cloudflare, Tailscale,
 *   private keys and database connection strings. Its rules are not run in-process: linting one
 *   answer through `@secretlint/core` costs about a hundred times our scan (see `bench/secrets.bench.ts`)
 *   and is asynchronous, while the answer check sits on the message path and is synchronous.
 * - Provider documentation for the formats the preset does not cover (Telegram and Discord bot
 *   tokens, Google OAuth access and refresh tokens, Azure shared keys, Twilio, Mailgun, DigitalOcean,
 *   PyPI, age, Atlassian, Postman, Doppler, Pulumi, Supabase).
 *
 * Every pattern starts at a boundary (`(?<![A-Za-z0-9_])`) so a prefix inside a longer word never
 * matches, and requires enough body that words in prose ("sk-learn", "AKIA note") do not.
 */

const B = '(?<![A-Za-z0-9_])';
const E = '(?![A-Za-z0-9_])';

export const KNOWN_FORMATS: readonly (readonly [rule: string, pattern: string])[] = [
  // secretlint-rule-aws / -gcp
  ['aws-access-key-id', `${B}(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}${E}`],
  ['gcp-service-account-key', `"type"\\s*:\\s*"service_account"[\\s\\S]{0,2000}"private_key"`],
  ['google-api-key', `${B}AIza[0-9A-Za-z_-]{35}${E}`],
  ['google-oauth-access-token', `${B}ya29\\.[0-9A-Za-z_-]{20,}`],
  ['google-oauth-refresh-token', `${B}1//0[0-9A-Za-z_-]{30,}`],
  // secretlint-rule-github / -gitlab / -npm
  ['github-token', `${B}gh[pousr]_[A-Za-z0-9_]{30,}`],
  ['github-fine-grained-token', `${B}github_pat_[A-Za-z0-9_]{30,}`],
  ['gitlab-token', `${B}gl(?:pat|ptt|dt|rt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,}`],
  ['npm-token', `${B}npm_[A-Za-z0-9]{30,}`],
  ['pypi-token', `${B}pypi-[A-Za-z0-9_-]{50,}`],
  // secretlint-rule-slack / -sendgrid / -shopify / -stripe
  ['slack-token', `${B}xox[abposr]-(?:\\d-)?(?:[A-Za-z0-9]{1,40}-)+[A-Za-z0-9]{1,40}`],
  ['slack-app-token', `${B}xapp-\\d-[A-Za-z0-9-]{10,}`],
  ['slack-webhook', `https://hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9]{1,40}/[A-Za-z0-9]{1,40}/[A-Za-z0-9]{1,60}`],
  ['sendgrid-key', `${B}SG\\.[A-Za-z0-9_-]{16,}\\.[A-Za-z0-9_-]{16,}`],
  ['shopify-token', `${B}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32,}`],
  ['stripe-secret-key', `${B}(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`],
  ['stripe-webhook-secret', `${B}whsec_[A-Za-z0-9]{20,}`],
  // secretlint-rule-openai / -anthropic / -groq / -huggingface
  ['anthropic-key', `${B}sk-ant-[A-Za-z0-9_-]{20,}`],
  ['openai-key', `${B}sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`],
  ['groq-key', `${B}gsk_[A-Za-z0-9]{40,}`],
  ['huggingface-token', `${B}hf_[A-Za-z0-9]{30,}`],
  // secretlint-rule-linear / -notion / -1password / -grafana / -hashicorp-vault / -vercel
  ['linear-key', `${B}lin_(?:api|oauth)_[A-Za-z0-9_]{32,}`],
  ['notion-token', `${B}(?:ntn_[0-9]{11}[A-Za-z0-9]{30,}|secret_[A-Za-z0-9]{43}${E})`],
  ['1password-service-token', `${B}ops_ey[A-Za-z0-9+/=]{100,}`],
  ['grafana-token', `${B}(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})`],
  ['vault-token', `${B}hv[sbr]\\.[A-Za-z0-9_-]{90,}`],
  ['vercel-token', `${B}vc[pikar]_[A-Za-z0-9]{20,}`],
  // secretlint-rule-databricks / -docker / -figma / -cloudflare / -tailscale
  ['databricks-token', `${B}dapi[A-Fa-f0-9]{32}`],
  ['docker-pat', `${B}dckr_pat_[A-Za-z0-9_-]{20,}`],
  ['figma-token', `${B}figd_[A-Za-z0-9_-]{40,}`],
  ['cloudflare-token', `${B}(?:cfk|cfut|cfat)_[A-Za-z0-9]{40,}`],
  ['tailscale-key', `${B}tskey-[a-z]{2,20}-[0-9A-Za-z_]{8,}-[0-9A-Za-z_]{16,}`],
  // bot tokens (Telegram BotFather, Discord developer portal)
  ['telegram-bot-token', `${B}\\d{8,10}:AA[A-Za-z0-9_-]{30,}`],
  ['discord-bot-token', `${B}[MNO][A-Za-z0-9_-]{23,27}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,40}`],
  ['discord-webhook', `https://(?:ptb\\.|canary\\.)?discord(?:app)?\\.com/api/webhooks/\\d+/[A-Za-z0-9_-]{30,}`],
  // other providers' documented prefixes
  ['twilio-key', `${B}SK[0-9a-fA-F]{32}${E}`],
  ['mailgun-key', `${B}key-[0-9a-f]{32}${E}`],
  ['digitalocean-token', `${B}do[pro]_v1_[a-f0-9]{64}`],
  ['atlassian-token', `${B}ATATT3[A-Za-z0-9_=-]{60,}`],
  ['postman-key', `${B}PMAK-[a-f0-9]{24}-[a-f0-9]{34}`],
  ['doppler-token', `${B}dp\\.(?:st|ct|sa|scim|audit)\\.[A-Za-z0-9_-]{30,}`],
  ['pulumi-token', `${B}pul-[a-f0-9]{40}`],
  ['supabase-key', `${B}sb_secret_[A-Za-z0-9_-]{20,}`],
  ['age-secret-key', `${B}AGE-SECRET-KEY-1[0-9A-Z]{50,}`],
  ['azure-storage-key', `(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{40,}={0,2}`],
  ['azure-sas-signature', `${B}sig=[A-Za-z0-9%+/]{30,}={0,2}`],
  // kubeconfig / cluster credentials files
  ['kubeconfig-credentials', `(?:client-key-data|client-certificate-data)\\s*:\\s*[A-Za-z0-9+/=]{40,}`],
  ['putty-private-key', `PuTTY-User-Key-File-\\d+:`],
];

/**
 * Connection strings that carry a password (secretlint-rule-database-connection-string, extended to
 * every scheme with userinfo): `scheme://user:password@host`, and ADO.NET / ODBC style
 * `...;Password=...;`.
 */
export const CONNECTION_FORMATS: readonly (readonly [rule: string, pattern: string])[] = [
  ['url-userinfo-password', `${B}[a-z][a-z0-9+.-]{1,30}://[^\\s:/@?#]{0,256}:[^\\s@/?#]{1,256}@[^\\s/?#]{1,256}`],
  ['connection-string-password', `(?:^|;)\\s*(?:Password|Pwd|PWD|password|pwd)\\s*=\\s*[^;\\s]{1,256}`],
];

/**
 * The prefixes of the formats above, as a text names them ("the long string that starts with
 * sk-", "begins with ghp_"): a form that describes a field this way asks for that key.
 */
export const KEY_PREFIXES: readonly string[] = [
  'sk-',
  'sk-proj-',
  'sk-ant-',
  'sk_live_',
  'sk_test_',
  'rk_live_',
  'rk_test_',
  'whsec_',
  'ghp_',
  'gho_',
  'ghu_',
  'ghs_',
  'ghr_',
  'github_pat_',
  'glpat-',
  'xoxb-',
  'xoxp-',
  'xoxa-',
  'xapp-',
  'AKIA',
  'ASIA',
  'AIza',
  'ya29.',
  'hf_',
  'npm_',
  'pypi-',
  'shpat_',
  'shpss_',
  'dckr_pat_',
  'lin_api_',
  'figd_',
  'gsk_',
  'ntn_',
  'hvs.',
  'dapi',
  'glc_',
  'glsa_',
  'tskey-',
  'AGE-SECRET-KEY-',
  'dop_v1_',
  'pul-',
  'sb_secret_',
  'vcp_',
];
