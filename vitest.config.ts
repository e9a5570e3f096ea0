import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The examples import the package by name, as a user would; tests run them against the source.
  resolve: { alias: { 'mcp-elicitation-guard/server': fileURLToPath(new URL('./src/server/index.ts', import.meta.url)) } },
  test: {
    // Sums the fault suite's invariant counters across worker processes and fails the run if one broke.
    globalSetup: ['test/faults/support/global-setup.ts', 'test/ledger/postgres-global-setup.ts'],
  },
});
