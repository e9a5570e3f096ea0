import { once } from 'node:events';
import type { Writable } from 'node:stream';

/**
 * Collects output in memory and hands it to the stream in large chunks, waiting for `drain` when the
 * stream asks for it: one `write` per ~64 KB instead of one per line, and bounded memory when the
 * reader is slower than we are.
 */
export class BufferedWriter {
  private buffer = '';

  constructor(
    private readonly stream: Writable,
    private readonly highWaterMark = 64 * 1024,
  ) {}

  /** Queues text; resolves after a flush when the buffer is full (await it to respect backpressure). */
  async write(text: string): Promise<void> {
    this.buffer += text;
    if (this.buffer.length >= this.highWaterMark) await this.flush();
  }

  /** Writes out whatever is queued and waits for `drain` if the stream's own buffer is full. */
  async flush(): Promise<void> {
    if (this.buffer === '') return;
    const chunk = this.buffer;
    this.buffer = '';
    if (!this.stream.write(chunk)) await once(this.stream, 'drain');
  }
}
