/**
 * What `analyzeUrl` hands to one caller is not shared mutable state with another call: each
 * result, display and segment list is its own; what is shared (the empty findings list, the
 * scheme and separator segments) is frozen.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/index.js';
import { analyzeUrl } from '../../src/url/index.js';

const policy = parsePolicy({}).base;

describe('analyzeUrl results', () => {
  it('gives each call its own result, display and segments', () => {
    const a = analyzeUrl('https://www.example.com/a?b#c', policy);
    const b = analyzeUrl('https://www.example.com/a?b#c', policy);
    expect(a).toEqual(b);
    expect(a).not.toBe(b);
    expect(a.display).not.toBe(b.display);
    expect(a.display.segments).not.toBe(b.display.segments);
    (a.display.segments as unknown[]).length = 0;
    expect(b.display.segments.length).toBeGreaterThan(0);
  });

  it('shares only frozen pieces', () => {
    const a = analyzeUrl('https://example.com/?#', policy);
    const b = analyzeUrl('https://example.org/?#', policy);
    expect(a.findings).toEqual([]);
    expect(Object.isFrozen(a.findings)).toBe(true);
    expect(() => (a.findings as unknown[]).push('x')).toThrow();
    expect(b.findings).toEqual([]);
    for (const s of [...a.display.segments, ...b.display.segments]) {
      const shared = [...a.display.segments, ...b.display.segments].filter((t) => t === s).length > 1;
      if (shared) expect(Object.isFrozen(s)).toBe(true);
    }
  });

  it('gives a list of its own to an analysis that found something', () => {
    const a = analyzeUrl('https://user:pw@example.com/', policy);
    const b = analyzeUrl('https://user:pw@example.com/', policy);
    expect(a.findings.length).toBeGreaterThan(0);
    expect(a.findings).not.toBe(b.findings);
  });
});
