import { spawn, type ChildProcess } from 'node:child_process';
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import { LineWriter, readLines } from './lines.js';

/** The server side of the proxy: something that carries JSON-RPC messages to and from the server. */
export interface Upstream {
  start(handlers: UpstreamHandlers): Promise<void>;
  /**
   * Sends one message. `line`, when given, is the message's original text, known to mean exactly
   * `message` (see `isFaithfulLine`): a transport that writes lines may write it as it is.
   */
  send(message: JsonRpcMessage, line?: string): Promise<void>;
  /** Ends the session: closes the server's input and waits for it to exit. */
  close(): Promise<void>;
  /** Passes a signal on (child processes only). */
  signal(signal: NodeJS.Signals): void;
}

export interface UpstreamHandlers {
  /** One message, with the line it was read from where the transport reads lines. */
  onMessage(message: unknown, line?: string): void;
  /** A line that is not JSON: logged by the proxy, never forwarded. */
  onMalformed(detail: string): void;
  /** The server went away; `code` is the child's exit code (1 when killed by a signal or unknown). */
  onExit(code: number): void;
  onError(error: Error): void;
}

/**
 * A server spawned as a child process, speaking MCP over its stdin/stdout. Its stderr is passed
 * through to the proxy's stderr; its stdout is read as protocol only.
 */
export class ChildUpstream implements Upstream {
  readonly #command: string;
  readonly #args: readonly string[];
  #child: ChildProcess | null = null;
  #writer: LineWriter | null = null;
  #exited: Promise<number> | null = null;

  constructor(command: string, args: readonly string[]) {
    this.#command = command;
    this.#args = args;
  }

  start(handlers: UpstreamHandlers): Promise<void> {
    const child = spawn(this.#command, [...this.#args], { stdio: ['pipe', 'pipe', 'inherit'], shell: false });
    this.#child = child;
    this.#writer = new LineWriter(child.stdin!);
    this.#exited = new Promise<number>((resolve) => {
      child.once('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128 + signalNumber(signal))));
    });
    void this.#exited.then((code) => handlers.onExit(code));
    child.stdin!.on('error', (error) => handlers.onError(error));
    readLines(
      child.stdout!,
      (line) => {
        if (line.trim() === '') return;
        let message: unknown;
        try {
          message = JSON.parse(line);
        } catch {
          handlers.onMalformed(`server wrote a line that is not JSON (${line.length} characters)`);
          return;
        }
        handlers.onMessage(message, line);
      },
      (bytes) => handlers.onMalformed(`server wrote a line of ${bytes} bytes, over the limit`),
    );
    return new Promise((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (error) => reject(error));
    });
  }

  send(message: JsonRpcMessage, line?: string): Promise<void> {
    const stdin = this.#child?.stdin;
    if (stdin === undefined || stdin === null || stdin.destroyed || this.#writer === null) return Promise.reject(new Error('the server is not running'));
    if (line === undefined) this.#writer.message(message);
    else this.#writer.line(line);
    return Promise.resolve();
  }

  async close(): Promise<void> {
    const child = this.#child;
    if (child === null || this.#exited === null) return;
    child.stdin?.end();
    // A server that does not exit when its input closes is asked to, then made to.
    const timer = setTimeout(() => child.kill('SIGTERM'), 2000);
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await this.#exited;
    clearTimeout(timer);
    clearTimeout(killer);
  }

  signal(signal: NodeJS.Signals): void {
    this.#child?.kill(signal);
  }
}

function signalNumber(signal: NodeJS.Signals): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  return numbers[signal] ?? 0;
}
