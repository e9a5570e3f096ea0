import { realpathSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';

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

/** `util.parseArgs` in strict mode, with its errors turned into `UsageError`s (exit 2 with a hint). */
type OptionsConfig = NonNullable<ParseArgsConfig['options']>;
type Parsed<T extends OptionsConfig> = ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>>;

export function parseCommandArgs<const T extends OptionsConfig>(argv: readonly string[], options: T, allowPositionals = true): Parsed<T> {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals, strict: true }) as Parsed<T>;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** True when this module is the script node was started with (also through a symlinked bin). */
export function isMainModule(moduleUrl: string): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}
