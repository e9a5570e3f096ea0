/** The example policy that `policy init` writes: every setting at its default, spelled out. */
export function examplePolicy(): Record<string, unknown> {
  return {
    $schema: './node_modules/mcp-elicitation-guard/policy.schema.json',
    version: 1,
    profile: 'production',
    issuing: 'open',
    form: { enabled: true, onSensitive: 'block', blockPersonal: false },
    url: { enabled: true, allowedHosts: [], protectedDomains: [], redirectHosts: [], maxLength: 2048, onBlock: 'block' },
    completion: { ttlSeconds: 600, maxPending: 1024 },
    retry: { maxRetries: 1, maxRounds: 10, maxUrlRequiredRounds: 5 },
    subject: { required: false },
    servers: {
      'local-dev-server': { profile: 'development' },
    },
  };
}
