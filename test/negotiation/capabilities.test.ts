import { describe, expect, it } from 'vitest';
import { allowedModes, declaredModes, narrowCapabilities } from '../../src/negotiation/capabilities.js';
import { parsePolicy } from '../../src/policy/policy.js';

describe('declaredModes', () => {
  it.each([
    [undefined, { form: false, url: false }],
    [{}, { form: false, url: false }],
    [{ elicitation: {} }, { form: true, url: false }],
    [{ elicitation: { form: {} } }, { form: true, url: false }],
    [{ elicitation: { url: {} } }, { form: false, url: true }],
    [{ elicitation: { form: {}, url: {} } }, { form: true, url: true }],
    [{ elicitation: 'yes' }, { form: false, url: false }],
  ])('reads %j as %j', (capabilities, modes) => {
    expect(declaredModes(capabilities)).toEqual(modes);
  });
});

describe('narrowCapabilities', () => {
  it('keeps the host settings inside kept modes and returns the same object when nothing changes', () => {
    const caps = { elicitation: { form: { applyDefaults: true }, url: {} }, sampling: {} };
    const policy = parsePolicy({ url: { enabled: false } }).base;
    const declared = declaredModes(caps);
    expect(narrowCapabilities(caps, declared, allowedModes(declared, policy))).toEqual({
      elicitation: { form: { applyDefaults: true } },
      sampling: {},
    });
    expect(narrowCapabilities(caps, declared, declared)).toBe(caps);
  });

  it('turns {} into an explicit form declaration only when it must change it', () => {
    const caps = { elicitation: {} };
    const declared = declaredModes(caps);
    expect(narrowCapabilities(caps, declared, { form: false, url: false })).toEqual({});
  });
});
