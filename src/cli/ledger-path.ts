import { isAbsolute, join } from 'node:path';

/** Where the ledger lives unless `--ledger` says otherwise (XDG Base Directory: state). */
export function defaultLedgerPath(env: Readonly<Record<string, string | undefined>>, home: string): string {
  const xdg = env.XDG_STATE_HOME;
  // The XDG spec says a relative value is invalid and must be ignored.
  const base = xdg !== undefined && xdg !== '' && isAbsolute(xdg) ? xdg : join(home, '.local', 'state');
  return join(base, 'mcp-elicitation-guard', 'ledger.sqlite');
}
