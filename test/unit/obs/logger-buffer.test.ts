import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/buffered-logger.ts', import.meta.url));

interface Run {
  /** stdout lines, each with when it arrived (ms after start). */
  readonly lines: Array<{ at: number; line: string }>;
  readonly exitAt: number;
}

function run(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, ...args]);
    const out: Array<{ at: number; line: string }> = [];
    let rest = '';
    child.stdout.on('data', (c: Buffer) => {
      const parts = (rest + c.toString()).split('\n');
      rest = parts.pop()!;
      for (const line of parts) out.push({ at: performance.now() - t0, line });
    });
    child.on('error', reject);
    child.on('close', () => resolve({ lines: out, exitAt: performance.now() - t0 }));
  });
}

describe('buffered stdout logger', () => {
  it('writes a lone line within the flush period, long before the process ends', async () => {
    const { lines, exitAt } = await run(['one']);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!.line)).toMatchObject({ msg: 'lonely line', n: 1 });
    // 40 bytes of a 4 KB buffer: only the periodic flush (100 ms) writes it before the process,
    // idle for 1.5 s after logging, exits.
    expect(exitAt - lines[0]!.at).toBeGreaterThan(1000);
  });

  it('loses no line when the process exits with lines still gathered', async () => {
    const { lines } = await run(['burst', '2000']);
    expect(lines).toHaveLength(2000);
    expect(lines.map((o) => (JSON.parse(o.line) as { i: number }).i)).toEqual(
      Array.from({ length: 2000 }, (_, i) => i),
    );
  });
});
