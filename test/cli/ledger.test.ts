import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultLedgerPath } from '../../src/cli/ledger.js';
import { main } from '../../src/cli/main.js';
import { createBusinessReceipt, createConsentReceipt, createNavigation, type NavigationRecord } from '../../src/flow/records.js';
import type { FlowState, FlowTrigger } from '../../src/flow/states.js';
import { SqliteLedger } from '../../src/ledger/sqlite.js';
import { businessInput, navigationInput, testDeps } from '../flow/support.js';
import { tempDir } from '../ledger/support.js';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function cli(argv: string[], cwd: string): Promise<Run> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await main(argv, { stdin: new PassThrough(), stdout, stderr, isTTY: false, cwd });
  return { code, stdout: out, stderr: err };
}

const TO_PENDING: [FlowState, FlowTrigger][] = [
  ['USER_REVIEW', 'presented'],
  ['NAVIGATION_ACCEPTED', 'user-accepted'],
  ['OUT_OF_BAND_PENDING', 'navigation-opened'],
];

describe('mcp-elicitation-guard ledger', () => {
  let tmp: ReturnType<typeof tempDir>;
  let file: string;
  let flows: Record<'review' | 'pending' | 'expired' | 'accepted', NavigationRecord>;

  beforeEach(async () => {
    tmp = tempDir('mcp-eg-cli-ledger-');
    file = join(tmp.dir, 'ledger.sqlite');
    const deps = testDeps(77);
    const ledger = await SqliteLedger.open(file);
    const make = async (steps: [FlowState, FlowTrigger][], purpose = 'Sign in to continue') => {
      deps.advance(1000);
      const { record } = createNavigation(navigationInput({ url: 'https://auth.example.com/cb?code=SECRETCODE123', purpose }), deps);
      await ledger.putNavigation(record);
      let state: FlowState = 'CREATED';
      for (const [to, trigger] of steps) {
        await ledger.updateFlowState(record.id, state, to, trigger, deps.advance(1));
        state = to;
      }
      return record;
    };
    flows = {
      review: await make([['USER_REVIEW', 'presented']], 'Review \u001b[2J\u202Eplease'),
      pending: await make(TO_PENDING),
      expired: await make([...TO_PENDING, ['EXPIRED', 'ttl-expired']]),
      accepted: await make([
        ...TO_PENDING,
        ['REQUIREMENT_VERIFIED', 'final-response'],
        ['NESTED_SERVER_CONTINUES', 'nested-lineage'],
        ['ORIGINAL_RESPONSE_ACCEPTED', 'final-response'],
      ]),
    };
    const consent = createConsentReceipt(
      { navigationId: flows.pending.id, shown: { display: null, findings: [], message: 'Sign in' }, decision: 'accept' },
      deps,
    );
    await ledger.putConsentReceipt(consent);
    await ledger.acceptBusinessReceipt(createBusinessReceipt(businessInput({ requirementReceiptIds: [consent.id] }), deps));
    await ledger.close();
  });
  afterEach(() => tmp.remove());

  const stateOf = async (id: string) => {
    const ledger = await SqliteLedger.open(file);
    try {
      return (await ledger.getNavigation(id))!.flow.state;
    } finally {
      await ledger.close();
    }
  };

  describe('list', () => {
    it('lists every flow, newest first', async () => {
      const run = await cli(['ledger', 'list', '--ledger', file], tmp.dir);
      expect(run.code).toBe(0);
      const lines = run.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^ID\s+STATE\s+SERVER\s+TARGET\s+CREATED\s+EXPIRES$/);
      expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual([
        flows.accepted.id,
        flows.expired.id,
        flows.pending.id,
        flows.review.id,
      ]);
      expect(lines[3]).toContain('OUT_OF_BAND_PENDING');
      expect(lines[3]).toContain('https://auth.example.com');
      expect(run.stdout).not.toContain('SECRETCODE123');
    });

    it('filters by state and limits, as JSON', async () => {
      const run = await cli(['ledger', 'list', '--ledger', file, '--state', 'EXPIRED', '--json'], tmp.dir);
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual([
        expect.objectContaining({
          id: flows.expired.id,
          state: 'EXPIRED',
          target: { scheme: 'https', host: 'auth.example.com', port: null },
        }),
      ]);
      const limited = await cli(['ledger', 'list', '--ledger', file, '--limit', '2', '--json'], tmp.dir);
      expect((JSON.parse(limited.stdout) as unknown[]).length).toBe(2);
    });

    it('lists nothing, without creating a file, when there is no ledger', async () => {
      const missing = join(tmp.dir, 'nothing-here.sqlite');
      const run = await cli(['ledger', 'list', '--ledger', missing, '--json'], tmp.dir);
      expect(run).toMatchObject({ code: 0, stdout: '[]\n' });
      expect(existsSync(missing)).toBe(false);
    });

    it('refuses an unknown state or a bad limit as usage errors', async () => {
      expect((await cli(['ledger', 'list', '--ledger', file, '--state', 'LIMBO'], tmp.dir)).code).toBe(2);
      expect((await cli(['ledger', 'list', '--ledger', file, '--limit', '0'], tmp.dir)).code).toBe(2);
      expect((await cli(['ledger', 'list', '--ledger', file, '--limit', '2x'], tmp.dir)).code).toBe(2);
    });
  });

  describe('show', () => {
    it('shows the record, its history and its consent receipts, without the URL query', async () => {
      const run = await cli(['ledger', 'show', flows.pending.id, '--ledger', file], tmp.dir);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`navigation ${flows.pending.id}`);
      expect(run.stdout).toContain('state:        OUT_OF_BAND_PENDING (on navigation-opened');
      expect(run.stdout).toContain('target:       https://auth.example.com (url sha256 ');
      expect(run.stdout).toMatch(/NAVIGATION_ACCEPTED → OUT_OF_BAND_PENDING on navigation-opened/);
      expect(run.stdout).toMatch(/accept\s+cr_[0-9a-f]{32}\s+shown sha256 [0-9a-f]{64}/);
      expect(run.stdout).toMatch(/business receipts:\n {2}\S+ {2}nested\s+br_[0-9a-f]{32} {2}retry 0 {2}response sha256 [0-9a-f]{64}\n/);
      expect(run.stdout).not.toContain('SECRETCODE123');
    });

    it('shows server text with control and bidi characters escaped, never obeyed', async () => {
      const run = await cli(['ledger', 'show', flows.review.id, '--ledger', file], tmp.dir);
      expect(run.stdout).toContain('Review \\u{1b}[2J\\u{202e}please');
      expect(run.stdout).not.toContain('\u001b');
      expect(run.stdout).not.toContain('\u202E');
    });

    it('gives the whole record as JSON', async () => {
      const run = await cli(['ledger', 'show', flows.pending.id, '--ledger', file, '--json'], tmp.dir);
      const shown = JSON.parse(run.stdout) as {
        record: NavigationRecord;
        flow: { state: string };
        history: unknown[];
        consents: unknown[];
      };
      expect(shown.record).toEqual(flows.pending);
      expect(shown.flow.state).toBe('OUT_OF_BAND_PENDING');
      expect(shown.history).toHaveLength(4);
      expect(shown.consents).toHaveLength(1);
      expect((shown as unknown as { business: { requirementReceiptIds: string[] }[] }).business).toHaveLength(1);
      const other = JSON.parse((await cli(['ledger', 'show', flows.expired.id, '--ledger', file, '--json'], tmp.dir)).stdout) as {
        business: unknown[];
      };
      expect(other.business).toEqual([]);
    });

    it('refuses an unknown id with E_UNKNOWN_NAVIGATION and exit 1', async () => {
      const run = await cli(['ledger', 'show', 'nav_nope', '--ledger', file], tmp.dir);
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr).toBe('E_UNKNOWN_NAVIGATION: no navigation record "nav_nope" in the ledger\n');
      const json = await cli(['ledger', 'show', 'nav_nope', '--ledger', file, '--json'], tmp.dir);
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, code: 'E_UNKNOWN_NAVIGATION' });
    });
  });

  describe('recover', () => {
    it('takes up a pending flow by hand', async () => {
      const run = await cli(['ledger', 'recover', flows.pending.id, '--ledger', file], tmp.dir);
      expect(run).toMatchObject({ code: 0, stdout: `${flows.pending.id}: OUT_OF_BAND_PENDING → USER_RETRY (manual-recovery)\n` });
      expect(await stateOf(flows.pending.id)).toBe('USER_RETRY');
    });

    it('takes up an expired flow by hand', async () => {
      const run = await cli(['ledger', 'recover', flows.expired.id, '--ledger', file, '--json'], tmp.dir);
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({
        ok: true,
        id: flows.expired.id,
        state: 'USER_RETRY',
        steps: [{ from: 'EXPIRED', to: 'USER_RETRY', trigger: 'manual-recovery' }],
      });
      expect(await stateOf(flows.expired.id)).toBe('USER_RETRY');
    });

    it('refuses a flow that is not stalled with E_ILLEGAL_TRANSITION and exit 1, changing nothing', async () => {
      for (const id of [flows.review.id, flows.accepted.id]) {
        const before = await stateOf(id);
        const run = await cli(['ledger', 'recover', id, '--ledger', file], tmp.dir);
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(
          /^E_ILLEGAL_TRANSITION: flow nav_[0-9a-f]+ is [A-Z_]+: recover applies only to OUT_OF_BAND_PENDING or EXPIRED flows\n$/,
        );
        expect(await stateOf(id)).toBe(before);
      }
    });

    it('refuses an unknown id with exit 1', async () => {
      expect((await cli(['ledger', 'recover', 'nav_nope', '--ledger', file], tmp.dir)).code).toBe(1);
    });
  });

  describe('confirm', () => {
    it('records "I have finished" on a pending flow, and on an expired one through the manual retry state', async () => {
      const pending = await cli(['ledger', 'confirm', flows.pending.id, '--ledger', file], tmp.dir);
      expect(pending).toMatchObject({
        code: 0,
        stdout: `${flows.pending.id}: OUT_OF_BAND_PENDING → REQUIREMENT_VERIFIED (user-confirmed)\n`,
      });
      const expired = await cli(['ledger', 'confirm', flows.expired.id, '--ledger', file, '--json'], tmp.dir);
      expect(JSON.parse(expired.stdout)).toEqual({
        ok: true,
        id: flows.expired.id,
        state: 'REQUIREMENT_VERIFIED',
        steps: [
          { from: 'EXPIRED', to: 'USER_RETRY', trigger: 'manual-recovery' },
          { from: 'USER_RETRY', to: 'REQUIREMENT_VERIFIED', trigger: 'user-confirmed' },
        ],
      });
    });

    it('refuses a flow that is not waiting for the out-of-band step, and changes nothing', async () => {
      const run = await cli(['ledger', 'confirm', flows.review.id, '--ledger', file], tmp.dir);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /^E_ILLEGAL_TRANSITION: flow nav_[0-9a-f]+ is USER_REVIEW: confirm applies only to flows waiting for the out-of-band step/,
      );
      const shown = await cli(['ledger', 'show', flows.review.id, '--ledger', file, '--json'], tmp.dir);
      expect(JSON.parse(shown.stdout).flow.state).toBe('USER_REVIEW');
    });
  });

  describe('cancel', () => {
    it('cancels a flow under review', async () => {
      const run = await cli(['ledger', 'cancel', flows.review.id, '--ledger', file], tmp.dir);
      expect(run).toMatchObject({ code: 0, stdout: `${flows.review.id}: USER_REVIEW → CANCELLED (user-cancelled)\n` });
      expect(await stateOf(flows.review.id)).toBe('CANCELLED');
    });

    it('cancels a pending flow through the manual retry state, recording both moves', async () => {
      const run = await cli(['ledger', 'cancel', flows.pending.id, '--ledger', file], tmp.dir);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(
        `${flows.pending.id}: OUT_OF_BAND_PENDING → USER_RETRY (manual-recovery)\n${flows.pending.id}: USER_RETRY → CANCELLED ` +
          `(user-cancelled)\n`,
      );
      const show = JSON.parse((await cli(['ledger', 'show', flows.pending.id, '--ledger', file, '--json'], tmp.dir)).stdout) as {
        history: { to: string }[];
      };
      expect(show.history.map((h) => h.to).slice(-2)).toEqual(['USER_RETRY', 'CANCELLED']);
    });

    it('refuses to cancel an accepted flow, or one already cancelled', async () => {
      const accepted = await cli(['ledger', 'cancel', flows.accepted.id, '--ledger', file], tmp.dir);
      expect(accepted.code).toBe(1);
      expect(accepted.stderr).toContain('E_ILLEGAL_TRANSITION');
      expect(await stateOf(flows.accepted.id)).toBe('ORIGINAL_RESPONSE_ACCEPTED');
      expect((await cli(['ledger', 'cancel', flows.review.id, '--ledger', file], tmp.dir)).code).toBe(0);
      expect((await cli(['ledger', 'cancel', flows.review.id, '--ledger', file], tmp.dir)).code).toBe(1);
    });

    it('refuses an id when there is no ledger at all, without creating one', async () => {
      const missing = join(tmp.dir, 'absent.sqlite');
      const run = await cli(['ledger', 'cancel', flows.review.id, '--ledger', missing], tmp.dir);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('E_UNKNOWN_NAVIGATION');
      expect(existsSync(missing)).toBe(false);
    });
  });

  describe('usage', () => {
    it('exits 2 without a subcommand, with an unknown one, or with a missing or extra ID', async () => {
      expect((await cli(['ledger'], tmp.dir)).code).toBe(2);
      expect((await cli(['ledger', 'purge', '--ledger', file], tmp.dir)).code).toBe(2);
      expect((await cli(['ledger', 'show', '--ledger', file], tmp.dir)).code).toBe(2);
      expect((await cli(['ledger', 'cancel', 'a', 'b', '--ledger', file], tmp.dir)).code).toBe(2);
      expect((await cli(['ledger', 'show', flows.review.id, '--state', 'EXPIRED', '--ledger', file], tmp.dir)).code).toBe(2);
    });

    it('prints help with exit 0', async () => {
      const run = await cli(['ledger', '--help'], tmp.dir);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('ledger recover ID');
    });

    it('exits 2 with E_LEDGER_UNAVAILABLE on a file that is not a ledger', async () => {
      const bogus = join(tmp.dir, 'bogus.sqlite');
      writeFileSync(bogus, 'not a database '.repeat(100));
      const run = await cli(['ledger', 'list', '--ledger', bogus], tmp.dir);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^E_LEDGER_UNAVAILABLE: /);
    });

    it('resolves --ledger against the working directory', async () => {
      const run = await cli(['ledger', 'list', '--ledger', 'ledger.sqlite', '--json'], tmp.dir);
      expect((JSON.parse(run.stdout) as unknown[]).length).toBe(4);
    });
  });

  describe('the default ledger file', () => {
    it('lives under XDG_STATE_HOME, or ~/.local/state when that is unset or relative', () => {
      expect(defaultLedgerPath({ XDG_STATE_HOME: '/var/state' }, '/home/u')).toBe('/var/state/mcp-elicitation-guard/ledger.sqlite');
      expect(defaultLedgerPath({}, '/home/u')).toBe('/home/u/.local/state/mcp-elicitation-guard/ledger.sqlite');
      expect(defaultLedgerPath({ XDG_STATE_HOME: 'relative/state' }, '/home/u')).toBe(
        '/home/u/.local/state/mcp-elicitation-guard/ledger.sqlite',
      );
      expect(defaultLedgerPath({ XDG_STATE_HOME: '' }, '/home/u')).toBe('/home/u/.local/state/mcp-elicitation-guard/ledger.sqlite');
    });
  });
});
