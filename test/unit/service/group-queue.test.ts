import { describe, expect, it } from 'vitest';
import { isDomainError } from '../../../src/domain/errors.js';
import { ProfileQueue } from '../../../src/service/write/profile-queue.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('per-profile write queue', () => {
  it('runs one profile’s writes one at a time, in arrival order; other profiles in parallel', async () => {
    const q = new ProfileQueue(5_000, 1);
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const write = (p: bigint, name: string, ms: number) =>
      q.run(p, async () => {
        running += p === 1n ? 1 : 0;
        most = Math.max(most, running);
        log.push(`start ${name}`);
        await sleep(ms);
        log.push(`end ${name}`);
        running -= p === 1n ? 1 : 0;
        return name;
      });
    const out = await Promise.all([
      write(1n, 'a', 20),
      write(1n, 'b', 5),
      write(2n, 'x', 1),
      write(1n, 'c', 1),
    ]);
    expect(out).toEqual(['a', 'b', 'x', 'c']);
    expect(most).toBe(1);
    const ones = log.filter((l) => !l.endsWith('x'));
    expect(ones).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(log.indexOf('start x')).toBeLessThan(log.indexOf('end a')); // not behind profile 1
    expect(q.busyProfiles).toBe(0);
  });

  it('answers 503 contention to a write that waited too long, and keeps the order behind it', async () => {
    const q = new ProfileQueue(30, 2);
    const slow = q.run(1n, () => sleep(120).then(() => 'slow'));
    // Handlers attached at once: both are refused while `slow` still runs.
    const late = q.run(1n, async () => 'never').catch((e: unknown) => e);
    const after = q.run(1n, async () => 'after').catch((e: unknown) => e);
    const err = await late;
    expect(isDomainError(err) && err.code).toBe('contention');
    expect(isDomainError(err) && err.details['retry_after_s']).toBe(2);
    expect(await slow).toBe('slow');
    // `after` also waited past the bound behind `slow`: refused too, never run early.
    expect(await after).toMatchObject({ code: 'contention' });
    expect(await q.run(1n, async () => 'fresh')).toBe('fresh');
    expect(q.busyProfiles).toBe(0);
  });

  it('a failing write frees its turn', async () => {
    const q = new ProfileQueue(1_000, 1);
    const bad = q.run(1n, async () => {
      throw new Error('boom');
    });
    const good = q.run(1n, async () => 'ok');
    await expect(bad).rejects.toThrow('boom');
    expect(await good).toBe('ok');
  });
});
