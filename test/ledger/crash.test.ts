import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FlowState } from '../../src/flow/states.js';
import { SqliteLedger } from '../../src/ledger/sqlite.js';
import { tempDir } from './support.js';

const WRITER = fileURLToPath(new URL('./fixtures/crash-writer.ts', import.meta.url));

// The order in which the writer moves every flow; a flow with an even index past 0 mod 3 stops at OUT_OF_BAND_PENDING.
const ORDER: readonly FlowState[] = [
  'CREATED',
  'USER_REVIEW',
  'NAVIGATION_ACCEPTED',
  'OUT_OF_BAND_PENDING',
  'COMPLETION_NOTIFIED',
  'REQUIREMENT_VERIFIED',
  'NESTED_SERVER_CONTINUES',
  'ORIGINAL_RESPONSE_ACCEPTED',
];

type Report =
  | { op: 'ready' | 'done' }
  | { op: 'state'; id: string; index: number; state: FlowState }
  | { op: 'consent'; id: string; navigationId: string }
  | { op: 'business'; id: string; original: string; largestGroup: number };

/** Runs the writer until it has reported enough, then kills it with SIGKILL. */
function runAndKill(
  file: string,
  enough: (reports: readonly Report[]) => boolean,
): Promise<{ reports: Report[]; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, file], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
    const reports: Report[] = [];
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    createInterface({ input: child.stdout }).on('line', (line) => {
      reports.push(JSON.parse(line) as Report);
      if (!killed && enough(reports)) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      clearTimeout(guard);
      resolve({ reports, signal, stderr });
    });
  });
}

describe('SqliteLedger crash safety', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => tmp.remove());

  it('keeps every write the killed writer reported, and every pending flow', async () => {
    const file = join(tmp.dir, 'ledger.sqlite');
    const { reports, signal, stderr } = await runAndKill(file, (r) => r.filter((x) => x.op === 'business').length >= 4 && r.length >= 120);
    expect(stderr).toBe('');
    expect(signal).toBe('SIGKILL');
    expect(reports.some((r) => r.op === 'done')).toBe(false);
    // The writer's concurrent flows shared transactions: what it reported came from groups, not lone commits.
    expect(Math.max(...reports.map((r) => (r.op === 'business' ? r.largestGroup : 0)))).toBeGreaterThan(1);

    const raw = new Database(file);
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    raw.close();

    const ledger = await SqliteLedger.open(file);
    try {
      const lastState = new Map<string, { index: number; state: FlowState }>();
      for (const r of reports) if (r.op === 'state') lastState.set(r.id, { index: r.index, state: r.state });
      expect(lastState.size).toBeGreaterThan(10);

      for (const [id, { state }] of lastState) {
        const stored = await ledger.getNavigation(id);
        expect(stored, id).not.toBeNull();
        // The writer may have committed one more move before it could report it, never fewer.
        expect(ORDER.indexOf(stored!.flow.state), `${id}: reported ${state}, stored ${stored!.flow.state}`).toBeGreaterThanOrEqual(
          ORDER.indexOf(state),
        );
      }

      for (const r of reports) {
        if (r.op === 'consent') expect((await ledger.listConsentReceipts(r.navigationId)).map((c) => c.id)).toContain(r.id);
        if (r.op === 'business')
          expect(
            (await ledger.getBusinessReceipt({ session: 'crash-session', kind: 'nested', originalRequestDigest: r.original }))?.id,
          ).toBe(r.id);
      }

      // Every flow the writer left waiting for the out-of-band step is still there to recover by hand.
      const pendingReported = [...lastState].filter(([, v]) => v.state === 'OUT_OF_BAND_PENDING' && v.index % 3 !== 0).map(([id]) => id);
      expect(pendingReported.length).toBeGreaterThan(3);
      const pendingStored = new Set((await ledger.listNavigations({ state: 'OUT_OF_BAND_PENDING' })).map((s) => s.record.id));
      for (const id of pendingReported) expect(pendingStored.has(id), id).toBe(true);
      for (const id of pendingReported)
        expect((await ledger.updateFlowState(id, 'OUT_OF_BAND_PENDING', 'USER_RETRY', 'manual-recovery', Date.now())).updated).toBe(true);
    } finally {
      await ledger.close();
    }
  }, 60_000);
});
