import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAuditLog } from '../../src/audit/log.js';
import { redact } from '../../src/audit/redact.js';

const token = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';

describe('redact', () => {
  it('replaces secret-shaped strings and strips URL queries, fragments and userinfo', () => {
    const out = redact({ a: token, b: ['see https://user:pw@example.com/cb?code=abc&state=x#frag now'], n: 3 });
    expect(out).toEqual({ a: '[redacted]', b: ['see https://example.com/cb?[redacted]#[redacted] now'], n: 3 });
  });
});

describe('createAuditLog', () => {
  it('appends one redacted JSON line per event', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'meg-audit-')), 'nested', 'audit.jsonl');
    const log = createAuditLog(file);
    const server = { key: 's', name: 'n', version: '1' };
    log.write({ type: 'guard.error', at: 1, server, generation: 1, code: 'E_GUARD_INTERNAL', message: `oops ${token}` });
    log.write({ type: 'completion.dropped', at: 2, server, generation: 1, reason: 'unknown', elicitation: 'abcd' });
    await log.close();
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(readFileSync(file, 'utf8')).not.toContain(token);
    expect(JSON.parse(lines[1]!)).toMatchObject({ type: 'completion.dropped', reason: 'unknown' });
  });
});
