import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Sums the fault suite's invariant counters across worker processes and fails the run if one broke.
    globalSetup: ['test/faults/support/global-setup.ts'],
  },
});
