/**
 * Serves the query page on a loopback address. A non-loopback bind is refused unless the caller
 * says `listenAnywhere` (the CLI warns when it does): the page can change flows.
 */
import { createAdaptorServer } from '@hono/node-server';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { GuardCode, GuardError } from '../protocol/errors.js';
import { createQueryPageApp, type QueryPageOptions } from './app.js';
import { allowedHosts, isLoopback } from './security.js';

export interface QueryPageServerOptions extends QueryPageOptions {
  /** The address to bind (default 127.0.0.1; 0.0.0.0 with `listenAnywhere`). */
  readonly host?: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** Allows a non-loopback bind. */
  readonly listenAnywhere?: boolean;
  /** The access secret; default: 32 random bytes. */
  readonly secret?: string;
}

export interface QueryPageServer {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** The link that exchanges the access secret for a session cookie: show it once, to its user only. */
  readonly accessUrl: string;
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

const token = () => randomBytes(32).toString('base64url');

function machineNames(): string[] {
  const names = [hostname()];
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) names.push(a.address);
  return names;
}

/**
 * Starts the query page. Resolves once it listens.
 * @example const page = await startQueryPage({ ledger }); console.log(page.accessUrl)
 */
export async function startQueryPage(options: QueryPageServerOptions): Promise<QueryPageServer> {
  const listenAnywhere = options.listenAnywhere === true;
  const host = options.host ?? (listenAnywhere ? '0.0.0.0' : '127.0.0.1');
  if (!isLoopback(host) && !listenAnywhere) {
    throw new GuardError(
      GuardCode.input,
      `the query page listens on loopback only; ${host} is not a loopback address (allow it explicitly with listenAnywhere / ` +
        `--listen-anywhere)`,
    );
  }
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new GuardError(GuardCode.input, 'the query page port must be an integer from 0 to 65535');
  const secret = options.secret ?? token();
  let hosts: ReadonlySet<string> = new Set();
  const app = createQueryPageApp(options, { secret, hosts: () => hosts, token });
  const server = createAdaptorServer({ fetch: app.fetch, overrideGlobalObjects: false });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const wildcard = host === '0.0.0.0' || host === '::';
  hosts = allowedHosts(wildcard ? '127.0.0.1' : host, bound, wildcard ? ['localhost', '::1', ...machineNames()] : []);
  const shown = wildcard ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const url = `http://${shown}:${bound}`;
  let closed: Promise<void> | null = null;
  return {
    url,
    accessUrl: `${url}/login?key=${secret}`,
    host,
    port: bound,
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      return closed;
    },
  };
}
