import { PassThrough, Readable } from 'node:stream';
import type { CliIo } from '../../src/cli/io.js';

export interface MemoryIo {
  readonly io: CliIo;
  /** Everything written to stdout so far (read it after the command resolved). */
  stdout(): string;
  stderr(): string;
}

/** A `CliIo` on in-memory streams; stdout and stderr are drained as they are written, like a terminal would. */
export function memoryIo(options: { stdin?: string | Readable; isTTY?: boolean; stderrTTY?: boolean; cwd?: string } = {}): MemoryIo {
  const stdin = typeof options.stdin === 'string' || options.stdin === undefined ? Readable.from([options.stdin ?? '']) : options.stdin;
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  if (options.stderrTTY === true) Object.assign(stderr, { isTTY: true });
  const out: string[] = [];
  const err: string[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk.toString('utf8')));
  stderr.on('data', (chunk: Buffer) => err.push(chunk.toString('utf8')));
  return {
    io: { stdin, stdout, stderr, isTTY: options.isTTY === true, cwd: options.cwd ?? process.cwd() },
    stdout: () => out.join(''),
    stderr: () => err.join(''),
  };
}
