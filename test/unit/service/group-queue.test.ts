import { describe, expect, it } from 'vitest';
import { isDomainError } from '../../../src/domain/errors.js';
import { WriteQueue as GroupQueue } from '../../../src/service/write-line/write-line.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A write the test's round runs: resolves with its name, or waits `ms` first. */
interface Item {
  readonly name: string;
  readonly ms: number;
  resolve(v: string): void;
  reject(err: unknown): void;
}

/** A queue whose round runs every item it gets (in order) and logs each round's names. */
function harness(opts: { maxWaitMs?: number; maxTake?: number; handBack?: (i: Item[]) => Item[] }) {
  const rounds: string[][] = [];
  let running = 0;
  let most = 0;
  const q = new GroupQueue<Item>(
    { maxWaitMs: opts.maxWaitMs ?? 5_000, retryAfterS: 2, maxTake: opts.maxTake ?? 32 },
    async (_p, items) => {
      running += 1;
      most = Math.max(most, running);
      const back = opts.handBack?.(items) ?? [];
      const mine = items.filter((i) => !back.includes(i));
      rounds.push(mine.map((i) => i.name));
      for (const i of mine) await sleep(i.ms);
      for (const i of mine) i.name === 'boom' ? i.reject(new Error('boom')) : i.resolve(i.name);
      running -= 1;
      return back;
    },
  );
  const write = (p: bigint, name: string, ms = 0) =>
    new Promise<string>((resolve, reject) => q.push(p, { name, ms, resolve, reject }));
  return { q, rounds, write, most: () => most };
}

describe('per-profile group queue', () => {
  it('runs one round per profile at a time; what waited meanwhile goes in the next round, in order', async () => {
    const h = harness({});
    const a = h.write(1n, 'a', 20);
    await sleep(1); // a's round is running
    const out = await Promise.all([a, h.write(1n, 'b'), h.write(2n, 'x'), h.write(1n, 'c')]);
    expect(out).toEqual(['a', 'b', 'x', 'c']);
    expect(h.rounds.filter((r) => r[0] !== 'x')).toEqual([['a'], ['b', 'c']]);
    const at = (name: string) => h.rounds.findIndex((r) => r[0] === name);
    expect(at('x')).toBeLessThan(at('b')); // profile 2 did not wait behind profile 1
    await sleep(1);
    expect(h.q.busyProfiles).toBe(0);
  });

  it('takes at most maxTake per round (1 = writes take turns)', async () => {
    const h = harness({ maxTake: 1 });
    await Promise.all(['a', 'b', 'c'].map((n) => h.write(1n, n, 2)));
    expect(h.rounds).toEqual([['a'], ['b'], ['c']]);
    const g = harness({ maxTake: 2 });
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((n) => g.write(1n, n, 2)));
    expect(g.rounds).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(g.most()).toBe(1);
  });

  it('writes a round hands back go first in the next round, ahead of newer ones', async () => {
    let handedBack = false;
    const h = harness({
      handBack: (items) => {
        if (handedBack || items.length < 2) return [];
        handedBack = true;
        return items.slice(1); // cut after the first
      },
    });
    const first = h.write(1n, 'a', 10);
    await sleep(1); // a's round is running
    const rest = [h.write(1n, 'b', 10), h.write(1n, 'c')];
    await sleep(1);
    const late = h.write(1n, 'd');
    expect(await Promise.all([first, ...rest, late])).toEqual(['a', 'b', 'c', 'd']);
    expect(h.rounds).toEqual([['a'], ['b'], ['c', 'd']]);
  });

  it('writes pushed in one turn of the event loop to an idle profile go in its first round together', async () => {
    const h = harness({});
    const out = await Promise.all([h.write(1n, 'a'), h.write(2n, 'x'), h.write(1n, 'b')]);
    expect(out).toEqual(['a', 'x', 'b']);
    expect(h.rounds.filter((r) => r[0] !== 'x')).toEqual([['a', 'b']]);
  });

  it('answers 503 contention to a write that waited too long, and keeps the order behind it', async () => {
    const h = harness({ maxWaitMs: 30 });
    const slow = h.write(1n, 'slow', 120);
    await sleep(1); // slow's round is running
    const late = h.write(1n, 'never').catch((e: unknown) => e);
    const after = h.write(1n, 'after').catch((e: unknown) => e);
    const err = await late;
    expect(isDomainError(err) && err.code).toBe('contention');
    expect(isDomainError(err) && err.details['retry_after_s']).toBe(2);
    expect(await slow).toBe('slow');
    expect(await after).toMatchObject({ code: 'contention' });
    expect(h.rounds).toEqual([['slow']]); // the refused ones never ran
    expect(await h.write(1n, 'fresh')).toBe('fresh');
    await sleep(1); // the runner lets go of the line right after its last round
    expect(h.q.busyProfiles).toBe(0);
  });

  it('a failing write frees the line', async () => {
    const h = harness({});
    const bad = h.write(1n, 'boom', 5);
    const good = h.write(1n, 'ok');
    await expect(bad).rejects.toThrow('boom');
    expect(await good).toBe('ok');
  });
});
