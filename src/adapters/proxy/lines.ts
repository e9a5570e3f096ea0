import type { Readable, Writable } from 'node:stream';

/** The longest line accepted from either side (the SDK's stdio default buffer). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/**
 * Splits a byte stream into newline-delimited lines (MCP's stdio framing), without ever holding
 * more than one line plus a chunk. A line over `maxBytes` is reported to `onOversized` and skipped.
 */
export function readLines(stream: Readable, onLine: (line: string) => void, onOversized: (bytes: number) => void, maxBytes = MAX_LINE_BYTES): void {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  stream.on('data', (chunk: Buffer | string) => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let newline = data.indexOf(0x0a);
    while (newline !== -1) {
      const head = data.subarray(0, newline);
      if (!skipping) {
        const line = pendingBytes === 0 ? head : Buffer.concat([...pending, head]);
        if (line.length > maxBytes) onOversized(line.length);
        else onLine(line.toString('utf8').replace(/\r$/, ''));
      }
      pending = [];
      pendingBytes = 0;
      skipping = false;
      data = data.subarray(newline + 1);
      newline = data.indexOf(0x0a);
    }
    if (data.length === 0 || skipping) return;
    pending.push(data);
    pendingBytes += data.length;
    if (pendingBytes > maxBytes) {
      onOversized(pendingBytes);
      pending = [];
      pendingBytes = 0;
      skipping = true;
    }
  });
}

/** Writes one message as one line. */
export function writeMessage(stream: Writable, message: unknown): void {
  stream.write(JSON.stringify(message) + '\n');
}
