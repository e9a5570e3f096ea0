import { describe, expect, it } from 'vitest';
import { createGuard } from '../../src/core/guard.js';

describe('createGuard({ sessionKey })', () => {
  it('accepts a lineage scope of 1 to 200 characters and refuses anything else with E_INPUT', () => {
    expect(() => createGuard({ sessionKey: 'conversation-42' })).not.toThrow();
    expect(() => createGuard({ sessionKey: 'x'.repeat(200) })).not.toThrow();
    for (const bad of ['', 'x'.repeat(201), 42 as unknown as string]) {
      expect(() => createGuard({ sessionKey: bad })).toThrow(expect.objectContaining({ code: 'E_INPUT' }));
    }
  });
});
