/**
 * Vitest global setup: one line for the whole run when the PostgreSQL tests are skipped, and a
 * failure in CI, where .ci/run must have started a cluster (scripts/with-postgres.sh).
 */
const ENV = 'MCP_GUARD_TEST_POSTGRES_URL';

export default function setup(): void {
  if (process.env[ENV]) return;
  if (process.env['CI'] === 'true')
    throw new Error(`${ENV} is not set: CI must start PostgreSQL (see .ci/run and scripts/with-postgres.sh)`);
  console.log(`PostgreSQL tests skipped: ${ENV} is not set (run them with: scripts/with-postgres.sh npm test)`);
}
