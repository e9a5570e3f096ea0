import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `npm start`'s script, as a child process whose stdout is a pipe (so the transcript is plain text). */
function runDemo(): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'fixtures/demo/host.ts'],
      { cwd: root, timeout: 30_000, env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

let run: Run;

beforeAll(async () => {
  run = await runDemo();
}, 40_000);

/** The lines of one step, from its heading to the next. */
function stepText(n: number): string {
  const start = run.stdout.indexOf(`── ${n}/8`);
  const end = run.stdout.indexOf('── ', start + 3);
  return run.stdout.slice(start, end === -1 ? undefined : end);
}

describe('npm start: the demo host against the demo server', () => {
  it('exits 0 with every step as expected', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.match(/✓ as expected/g)).toHaveLength(8);
    expect(run.stdout).not.toContain('✗');
    expect(run.stdout).toContain('All 8 steps behaved as expected.');
  });

  it('prints plain text when stdout is not a terminal', () => {
    expect(run.stdout).not.toContain('\u001b');
  });

  it('forwards the ordinary form and shows the answers the server got', () => {
    expect(stepText(1)).toContain('elicitation.forwarded  form mode');
    expect(stepText(1)).toContain('server gets  accept {"project":"shop-api","replicas":3}');
  });

  it('refuses the password form; the server gets -32602 E_SENSITIVE_FIELD naming the field', () => {
    expect(stepText(2)).toContain('form.sensitive  blocked: password (credential)');
    expect(stepText(2)).toContain('server gets  -32602 E_SENSITIVE_FIELD (password: credential)');
    expect(stepText(2)).not.toContain('user sees');
  });

  it('blocks the homograph URL and renders it in Punycode with the domain highlighted', () => {
    const text = stepText(3);
    expect(text).toContain('E_URL_BLOCKED');
    expect(text).toContain('https://[xn--pypal-4ve.com]/login');
    expect(text).toContain('URL_LOOKALIKE_HOMOGLYPH');
    expect(text).not.toContain('would open');
  });

  it('opens nothing but says what it would open, once consent is recorded', () => {
    const text = stepText(4);
    expect(text).toContain('https://[github.com]/login/oauth/authorize?');
    expect(text.indexOf('receipt.consent  accept')).toBeLessThan(text.indexOf('would open'));
    expect(text).toContain('says "I have finished in the browser"');
    expect(text).toContain('ORIGINAL_RESPONSE_ACCEPTED');
  });

  it('drops the completion notice for an id never issued', () => {
    expect(stepText(5)).toContain('completion.dropped  unknown id');
    expect(stepText(5)).not.toContain('host gets    notifications/elicitation/complete');
  });

  it('presents the -32042 requirement and lets the retry through once the user has finished', () => {
    const text = stepText(6);
    expect(text).toContain('error -32042');
    expect(text).toContain('would open https://checkout.stripe.com/');
    expect(text.indexOf('ERROR_RETRY_ELIGIBLE')).toBeLessThan(text.indexOf('host retries'));
    expect(text).toContain('RETRY_RESPONSE_ACCEPTED');
    expect(text).toContain('"Invoice INV-1042 is paid."');
  });

  it('refuses the retry of the long-running call while it is in flight, and the call runs once', () => {
    const text = stepText(7);
    expect(text).toContain('retry.refused  E_RETRY_WHILE_IN_FLIGHT');
    expect(text).toContain('error -32600 E_RETRY_WHILE_IN_FLIGHT');
    expect(text).toContain('completion.delivered');
    expect(text).toContain('(deployment #1)');
  });

  it('closes with the guard metrics and the ledger receipts', () => {
    const summary = run.stdout.slice(run.stdout.indexOf('── Summary'));
    expect(summary).toMatch(/elicitations refused\s+2/);
    expect(summary).toMatch(/completions dropped\s+1/);
    expect(summary).toMatch(/consent receipts\s+3\s+accept ×3/);
    expect(summary).toMatch(/business receipts\s+3\s+nested ×2, error-retry ×1/);
  });
  it('shows one 2026-07-28 step: the password form taken out of the round, decline to the server, the ordinary form to the user', () => {
    const text = stepText(8);
    expect(text).toContain('Spec 2026-07-28 with SDK v2');
    expect(text).toContain('elicitation.refused  E_SENSITIVE_FIELD');
    expect(text).toContain('login: decline (E_SENSITIVE_FIELD, from');
    expect(text).toContain('project: accept {"project":"shop-api","replicas":3}');
    expect(text).not.toMatch(/user sees[^\n]*\n[^\n]*Password/);
  });
});
