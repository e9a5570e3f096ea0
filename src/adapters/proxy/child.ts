import { spawn, type ChildProcess } from 'node:child_process';
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import { isBlank, LineWriter, readLines } from './lines.js';

/** The server side of the proxy: something that carries JSON-RPC messages to and from the server. */
export interface Upstream {
  start(handlers: UpstreamHandlers): Promise<void>;
  /**
   * Sends one message. `line`, when given, is the message's original text, known to mean exactly
   * `message` (see `isFaithfulLine`): a transport that writes lines may write it as it is, or
   * `bytes` where given (exactly the UTF-8 of `line` and a newline, see `LineHandler`). A
   * transport that sends synchronously returns nothing (and throws when it cannot send).
   */
  send(message: JsonRpcMessage, line?: string, bytes?: Buffer): Promise<void> | void;
  /** Ends the session: closes the server's input and waits for it to exit. */
  close(): Promise<void>;
  /** Passes a signal on (child processes only). */
  signal(signal: NodeJS.Signals): void;
}

export interface UpstreamHandlers {
  /**
   * One message, with the line it was read from where the transport reads lines, the keys
   * `readLines` counted in that line (see `keysMatch`) and the line's bytes (see `LineHandler`).
   */
  onMessage(message: unknown, line?: string, keys?: number, bytes?: Buffer): void;
  /** A line that is not JSON: logged by the proxy, never forwarded. */
  onMalformed(detail: string): void;
  /**
   * The server went away; `code` is the child's exit code (128 + n when killed by signal n, 1 when
   * unknown); `signal` names the signal when there was one.
   */
  onExit(code: number, signal?: NodeJS.Signals | null): void;
  /** The server process is running (child processes only). */
  onStart?(info: { readonly pid: number | undefined; readonly command: string }): void;
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
  #exited: Promise<{ code: number; signal: NodeJS.Signals | null }> | null = null;

  constructor(command: string, args: readonly string[]) {
    this.#command = command;
    this.#args = args;
  }

  start(handlers: UpstreamHandlers): Promise<void> {
    const child = spawn(this.#command, [...this.#args], { stdio: ['pipe', 'pipe', 'inherit'], shell: false });
    this.#child = child;
    this.#writer = new LineWriter(child.stdin!);
    this.#exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        const done = () => resolve({ code: code ?? (signal === null ? 1 : 128 + signalNumber(signal)), signal });
        // What the server wrote just before it exited is still in the pipe: read it first (briefly,
        // in case a grandchild keeps the pipe open), so answers are not mistaken for lost requests.
        const stdout = child.stdout;
        if (stdout === null || stdout.readableEnded || stdout.destroyed) return done();
        const timer = setTimeout(done, 500);
        stdout.once('end', () => {
          clearTimeout(timer);
          done();
        });
      });
    });
    void this.#exited.then(({ code, signal }) => handlers.onExit(code, signal));
    child.stdin!.on('error', (error) => handlers.onError(error));
    readLines(
      child.stdout!,
      (line, keys, bytes) => {
        if (isBlank(line)) return;
        let message: unknown;
        try {
          message = JSON.parse(line);
        } catch {
          handlers.onMalformed(`server wrote a line that is not JSON (${line.length} characters)`);
          return;
        }
        handlers.onMessage(message, line, keys, bytes);
      },
      (bytes) => handlers.onMalformed(`server wrote a line of ${bytes} bytes, over the limit`),
    );
    return new Promise((resolve, reject) => {
      child.once('spawn', () => {
        handlers.onStart?.({ pid: child.pid, command: this.#command });
        resolve();
      });
      child.once('error', (error) => reject(error));
    });
  }

  send(message: JsonRpcMessage, line?: string, bytes?: Buffer): void {
    const stdin = this.#child?.stdin;
    if (stdin === undefined || stdin === null || stdin.destroyed || this.#writer === null) throw new Error('the server is not running');
    if (line === undefined) this.#writer.message(message);
    else this.#writer.line(line, bytes);
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
