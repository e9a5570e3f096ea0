import { once } from 'node:events';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BufferedWriter } from '../../src/cli/buffered-writer.js';

/** A sink that accepts one chunk per tick and reports backpressure after each write. */
function slowSink(): { stream: Writable; chunks: string[]; writes: () => number } {
  const chunks: string[] = [];
  let writes = 0;
  const stream = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _encoding, callback) {
      writes++;
      chunks.push(chunk.toString('utf8'));
      setImmediate(callback);
    },
  });
  return { stream, chunks, writes: () => writes };
}

describe('BufferedWriter', () => {
  it('batches small writes into chunks of about the high-water mark', async () => {
    const sink = slowSink();
    const writer = new BufferedWriter(sink.stream, 1024);
    for (let i = 0; i < 1000; i++) await writer.write(`line ${i}\n`);
    await writer.flush();
    sink.stream.end();
    await once(sink.stream, 'finish');
    const text = sink.chunks.join('');
    expect(text.split('\n').slice(0, -1)).toEqual(Array.from({ length: 1000 }, (_, i) => `line ${i}`));
    expect(sink.writes()).toBeLessThan(20);
  });

  it('waits for drain when the stream is full, so nothing is lost or reordered', async () => {
    const sink = slowSink();
    const writer = new BufferedWriter(sink.stream, 8);
    let pending = 0;
    const original = sink.stream.write.bind(sink.stream);
    sink.stream.write = ((chunk: string) => {
      pending = sink.stream.writableLength;
      return original(chunk);
    }) as typeof sink.stream.write;
    for (let i = 0; i < 200; i++) await writer.write(`chunk-${i};`);
    await writer.flush();
    expect(pending).toBeLessThanOrEqual(16);
    sink.stream.end();
    await once(sink.stream, 'finish');
    expect(sink.chunks.join('')).toBe(Array.from({ length: 200 }, (_, i) => `chunk-${i};`).join(''));
  });

  it('writes nothing on an empty flush', async () => {
    const sink = slowSink();
    await new BufferedWriter(sink.stream).flush();
    expect(sink.writes()).toBe(0);
  });
});
