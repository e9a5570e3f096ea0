import type { Readable, Writable } from 'node:stream';

/** What a subcommand may touch: injected so tests can run commands in process. */
export interface CliIo {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  /** True when stdout is a terminal (ANSI rendering). */
  readonly isTTY: boolean;
  readonly cwd: string;
}

/** A subcommand: parses its own argv (after the subcommand name) and returns the exit code. */
export type Command = (argv: readonly string[], io: CliIo) => Promise<number>;

/** Exit codes shared by every subcommand. */
export const Exit = { ok: 0, blocked: 1, usage: 2 } as const;

/** A usage error: printed to stderr with a hint, exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function writeLine(stream: Writable, text: string): void {
  stream.write(text + '\n');
}
