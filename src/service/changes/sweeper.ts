/**
 * The change stream's sweeper: rolls forward the grids whose writer marked them before a
 * compare-and-set and never published (it crashed, or Redis did not answer the publish), once the
 * mark is older than CHANGES_SWEEP_AGE_MS (well above a batch's longest round trip, so a live
 * writer has published or taken its mark back by then). Every CHANGES_SWEEP_INTERVAL_MS it reads
 * each shard's aged marks, publishes the grids' unpublished versions from their change logs
 * (publisher.ts `rollForward`, which clears the marks in the same script) and samples the streams'
 * length; first of all, the grids this process owes (publisher.ts `owe`: Redis did not answer
 * their mark or publish). Every instance may sweep: the publish script makes two sweeps of one
 * grid publish each version once.
 */
import { profileOfMark, streamKeys } from '../../cache/change-stream.js';
import type { RedisGuard } from '../../cache/redis.js';
import { changesPendingMarks, changesStreamLength } from '../../obs/change-metrics.js';
import type { ChangePublisher } from './publisher.js';

export interface SweepSettings {
  readonly intervalMs: number;
  readonly ageMs: number;
  /** Marks read per shard and sweep. */
  readonly batch?: number;
}

export interface ChangeSweeper {
  /** One sweep now: the number of versions it published. */
  sweep(): Promise<number>;
  stop(): Promise<void>;
}

export function startChangeSweeper(
  publisher: ChangePublisher,
  redis: RedisGuard,
  settings: SweepSettings,
  log: (msg: string, err?: unknown) => void = () => {},
): ChangeSweeper {
  const { prefix, shards } = publisher.settings;
  let running: Promise<number> | undefined;

  async function sweepShard(shard: number, before: number): Promise<[number, number, number]> {
    const keys = streamKeys(prefix, shard);
    const limit = settings.batch ?? 100;
    const aged = await redis.run((c) =>
      c.zrangebyscore(keys.pending, '-inf', before, 'LIMIT', 0, limit),
    );
    const length = (await redis.run((c) => c.xlen(keys.stream))) ?? 0;
    const byProfile = new Map<bigint, string[]>();
    for (const m of aged ?? []) {
      const p = profileOfMark(m);
      if (p !== undefined) byProfile.set(p, [...(byProfile.get(p) ?? []), m]);
    }
    let published = 0;
    for (const [profileId, marks] of byProfile) {
      try {
        published += (await publisher.rollForward(profileId, marks, 'sweeper')) ?? 0;
      } catch (err) {
        log(`change sweeper: ${profileId} left for the next sweep`, err);
      }
    }
    return [published, aged?.length ?? 0, length];
  }

  /** The grids whose mark or publish failed in this process (Redis answers again by now?). */
  async function sweepOwed(): Promise<number> {
    let published = 0;
    for (const profileId of publisher.takeOwed()) {
      try {
        const n = await publisher.rollForward(profileId, [], 'sweeper');
        if (n === undefined) publisher.owe(profileId);
        else published += n;
      } catch (err) {
        publisher.owe(profileId);
        log(`change sweeper: ${profileId} left for the next sweep`, err);
      }
    }
    return published;
  }

  async function sweepAll(): Promise<number> {
    const before = Date.now() - settings.ageMs;
    let published = await sweepOwed();
    let marks = 0;
    let length = 0;
    for (let shard = 0; shard < shards; shard++) {
      const [p, m, l] = await sweepShard(shard, before);
      published += p;
      marks += m;
      length += l;
    }
    changesPendingMarks.set(marks);
    changesStreamLength.set(length);
    return published;
  }

  const sweep = (): Promise<number> => {
    running ??= sweepAll().finally(() => (running = undefined));
    return running;
  };
  const timer =
    settings.intervalMs > 0
      ? setInterval(() => {
          sweep().catch((err: unknown) => log('change sweep failed', err));
        }, settings.intervalMs)
      : undefined;
  timer?.unref();
  return {
    sweep,
    async stop() {
      if (timer) clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
