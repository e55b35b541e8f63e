/**
 * The feed's stream consumer: one consumer of a consumer group on every shard stream of the
 * change stream (keys.ts). At-least-once in, exactly-once effect out:
 *
 * - XREADGROUP delivers each entry to one consumer of the group; the entry stays in that
 *   consumer's pending list until XACK, which comes only after every follower's script ran.
 * - A consumer that dies leaves its entries pending; every consumer XAUTOCLAIMs entries idle
 *   longer than `minIdleMs` and applies them. Whatever the dead one had already applied is a
 *   duplicate to the per-follower watermarks (scripts.ts) and changes nothing.
 * - An entry a follower answers `gap` for (an earlier version of the profile is still pending
 *   elsewhere) is left pending and re-read from this consumer's own pending list each round,
 *   until the earlier one has been applied (by whoever holds or claims it).
 *
 * One XREADGROUP names every shard key on a single Redis; on a Redis Cluster the shard keys live
 * in different slots (their hash tags), so it reads each key on its own.
 */
import { Cluster } from 'ioredis';
import { parseEvent, planOf } from './decide.js';
import type { FeedKeys } from './keys.js';
import { followersOf } from './graph.js';
import { applyForFollower, type FeedRedis } from './scripts.js';

export interface ConsumerSettings {
  readonly streamKeys: readonly string[];
  readonly group: string;
  readonly consumer: string;
  readonly blockMs: number;
  readonly count: number;
  /** Entries pending this long on any consumer are taken over (XAUTOCLAIM). */
  readonly minIdleMs: number;
  readonly claimEveryMs: number;
  /**
   * How long an entry may wait for an earlier version of its profile before it is applied over
   * the gap. The write side publishes a gap only when its change log no longer held the missing
   * versions (docs/integration.md, "Change stream"); waiting longer than a claim of a dead
   * consumer's entries takes (`minIdleMs` + `claimEveryMs`) tells the two cases apart.
   */
  readonly gapTimeoutMs: number;
  /** Count every insertion per post in the follower's `inserts` hash (keys.ts). */
  readonly audit: boolean;
  /** Where a new group starts: '0' every retained entry (the default), '$' only new ones. */
  readonly startAt?: '0' | '$';
  /**
   * Called for an event of a profile nobody follows, before the fan-out (the CLI's
   * --auto-follow: a load test's profiles are fresh, so they cannot be named beforehand).
   */
  readonly autoFollow?: (profile: string) => Promise<void>;
}

export interface FeedStats {
  /** Stream entries handled and acknowledged. */
  events: number;
  /** (event, follower) pairs applied. */
  applied: number;
  /** (event, follower) pairs skipped because the follower had applied that version already. */
  duplicates: number;
  /** Times an entry was left pending because an earlier version was not applied yet. */
  deferred: number;
  inserts: number;
  removals: number;
  /** Removals a post survived because another followed grid still holds it. */
  kept: number;
  /** Posts of moves, pins, resets, … already in a timeline: not re-inserted, not re-positioned. */
  reinsertsRefused: number;
  notFollowing: number;
  /** Entries without a contract event (acknowledged, so they do not block the group). */
  malformed: number;
  claimed: number;
  /** (event, follower) pairs applied over a gap after `gapTimeoutMs`. */
  gapsAccepted: number;
}

type Entry = [id: string, fields: string[] | null];
type StreamReply = Array<[key: string, entries: Entry[]]> | null;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class FeedConsumer {
  readonly stats: FeedStats = {
    events: 0,
    applied: 0,
    duplicates: 0,
    deferred: 0,
    inserts: 0,
    removals: 0,
    kept: 0,
    reinsertsRefused: 0,
    notFollowing: 0,
    malformed: 0,
    claimed: 0,
    gapsAccepted: 0,
  };
  /**
   * Entries this consumer left pending (`key id`) and since when: a retry does not count its
   * duplicates twice, and one deferred longer than `gapTimeoutMs` is applied over its gap.
   */
  private readonly deferredEntries = new Map<string, number>();
  private readonly reader: FeedRedis;
  private lastClaim = 0;
  private ownPendingDue = true;

  constructor(
    private readonly redis: FeedRedis,
    private readonly keys: FeedKeys,
    private readonly settings: ConsumerSettings,
  ) {
    // Blocking reads get their own connection: a blocked connection would hold up the scripts.
    this.reader = redis.duplicate();
  }

  /** Creates the group on every shard stream (and the stream, if the writer has not yet). */
  async start(): Promise<void> {
    for (const key of this.settings.streamKeys) {
      try {
        const start = this.settings.startAt ?? '0';
        await this.redis.xgroup('CREATE', key, this.settings.group, start, 'MKSTREAM');
      } catch (err) {
        if (!String((err as Error).message).startsWith('BUSYGROUP')) throw err;
      }
    }
  }

  /** One round: claims (when due), own entries left pending, new entries. Returns entries read. */
  async poll(): Promise<number> {
    let handled = 0;
    if (Date.now() - this.lastClaim >= this.settings.claimEveryMs) {
      this.lastClaim = Date.now();
      handled += await this.claim();
    }
    if (this.ownPendingDue || this.deferredEntries.size > 0) {
      // Re-read what this consumer holds: its deferred entries, and at start what an earlier
      // process of the same name left. Whatever another consumer claimed meanwhile is not there.
      const retry = new Map(this.deferredEntries);
      this.deferredEntries.clear();
      this.ownPendingDue = false;
      handled += await this.handleReply(await this.read('0', 0), retry);
    }
    const block = this.deferredEntries.size > 0 ? Math.min(this.settings.blockMs, 50) : undefined;
    handled += await this.handleReply(await this.read('>', block ?? this.settings.blockMs));
    return handled;
  }

  async close(): Promise<void> {
    this.reader.disconnect();
  }

  private async read(from: '0' | '>', blockMs: number): Promise<StreamReply> {
    const { group, consumer, count, streamKeys } = this.settings;
    const head = ['GROUP', group, consumer, 'COUNT', String(count)];
    const xread = (keys: readonly string[], block: string[]) =>
      this.reader.call(
        'XREADGROUP',
        ...head,
        ...block,
        'STREAMS',
        ...keys,
        ...keys.map(() => from),
      ) as Promise<StreamReply>;
    const block = from === '>' && blockMs > 0 ? ['BLOCK', String(blockMs)] : [];
    if (!(this.redis instanceof Cluster)) return xread(streamKeys, block);
    // A cluster: one read per key, none blocking (a blocked node connection would serialise the
    // others); wait `blockMs` when every shard was empty.
    const replies = await Promise.all(streamKeys.map((k) => xread([k], [])));
    const merged = replies.flatMap((r) => r ?? []);
    if (merged.every(([, entries]) => entries.length === 0) && block.length > 0) {
      await sleep(blockMs);
    }
    return merged;
  }

  private async claim(): Promise<number> {
    const { group, consumer, count, minIdleMs, streamKeys } = this.settings;
    let handled = 0;
    for (const key of streamKeys) {
      let cursor = '0-0';
      do {
        const [next, entries] = (await this.redis.call(
          'XAUTOCLAIM',
          key,
          group,
          consumer,
          String(minIdleMs),
          cursor,
          'COUNT',
          String(count),
        )) as [string, Entry[]];
        this.stats.claimed += entries.length;
        handled += await this.handleReply([[key, entries]]);
        cursor = next;
      } while (cursor !== '0-0');
    }
    return handled;
  }

  private async handleReply(
    reply: StreamReply,
    retry: ReadonlyMap<string, number> = this.deferredEntries,
  ): Promise<number> {
    let handled = 0;
    for (const [key, entries] of reply ?? []) {
      for (const [id, fields] of entries) {
        await this.handle(key, id, fields, retry.get(`${key} ${id}`));
        handled += 1;
      }
    }
    return handled;
  }

  private async handle(
    key: string,
    id: string,
    fields: string[] | null,
    deferredSince: number | undefined,
  ): Promise<void> {
    const tag = `${key} ${id}`;
    const at = fields ? fields.findIndex((v, i) => i % 2 === 0 && v === 'event') : -1;
    const event = at >= 0 ? parseEvent(fields?.[at + 1] ?? '') : undefined;
    if (!event) {
      // Unparsable, or trimmed from the stream while pending (fields null): nothing to apply.
      this.stats.malformed += 1;
      await this.ack(key, id, tag);
      return;
    }
    const planned = planOf(event);
    const retry = deferredSince !== undefined;
    const force = retry && Date.now() - deferredSince >= this.settings.gapTimeoutMs;
    let followers = await followersOf(this.redis, this.keys, event.profile_id);
    if (followers.length === 0 && this.settings.autoFollow) {
      await this.settings.autoFollow(event.profile_id);
      followers = await followersOf(this.redis, this.keys, event.profile_id);
    }
    const results = await Promise.all(
      followers.map((f) =>
        applyForFollower(this.redis, this.keys, f, planned, this.settings.audit, force),
      ),
    );
    let gap = false;
    for (const r of results) {
      if (r.verdict === 'gap') gap = true;
      else if (r.verdict === 'duplicate') this.stats.duplicates += retry ? 0 : 1;
      else if (r.verdict === 'not_following') this.stats.notFollowing += 1;
      else {
        this.stats.applied += 1;
        if (r.verdict === 'forced') this.stats.gapsAccepted += 1;
        this.stats.inserts += r.inserted;
        this.stats.removals += r.removed;
        this.stats.kept += r.kept;
        this.stats.reinsertsRefused += r.refused;
      }
    }
    if (gap) {
      this.stats.deferred += 1;
      this.deferredEntries.set(tag, deferredSince ?? Date.now());
      return;
    }
    await this.ack(key, id, tag);
  }

  private async ack(key: string, id: string, tag: string): Promise<void> {
    await this.redis.xack(key, this.settings.group, id);
    this.deferredEntries.delete(tag);
    this.stats.events += 1;
  }
}
