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
 *
 * With a durable store (store.ts, PostgreSQL) and the regrid API (api.ts), the consumer also
 * survives a Redis data loss (docs/integration.md, "After a Redis data loss"): each event is
 * applied to the profile's durable state first, under its row, then fanned out; a `NOGROUP` (the
 * stream and its group are gone) or a missing `rebuilt` key (the feed's own keys are gone)
 * starts a recovery: the groups are made again from the start of the streams, every follower's
 * Redis state is rebuilt from the store, and every followed profile is caught up from the
 * catch-up route. A profile whose watermark is ahead of the service's head, whose versions show a
 * gap no pending entry fills, or that opens a new generation is repaired the same way; where the
 * route answers 410 (or the history cannot be trusted) its posts come from a grid read.
 */
import { Cluster } from 'ioredis';
import { changesAfter, readGrid, type Get } from './api.js';
import {
  durableVerdict,
  feedOpOf,
  formatWatermark,
  parseEvent,
  planOf,
  type ChangeEvent,
} from './decide.js';
import type { FeedKeys } from './keys.js';
import { follow as followInRedis, followersOf } from './graph.js';
import { applyForFollower, resyncFollower, type FeedRedis } from './scripts.js';
import type { FeedStore, ProfileTx } from './store.js';

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
  /** The durable store of the follow graph and per-profile watermarks (store.ts). */
  readonly store?: FeedStore;
  /** GET on the regrid API (api.ts): the catch-up route and grid reads a repair uses. */
  readonly api?: Get;
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
  /** Redis data losses handled (NOGROUP, or the `rebuilt` key gone). */
  recoveries: number;
  /** Profiles caught up from the catch-up route (a recovery, a gap, a new generation). */
  repaired: number;
  /** Versions applied from the catch-up route rather than from the stream. */
  caughtUp: number;
  /** Profiles whose posts were read from the grid (410, a watermark ahead of the head, …). */
  gridReads: number;
  /** (follower, profile) pairs whose Redis state was set from the durable store. */
  resynced: number;
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
    recoveries: 0,
    repaired: 0,
    caughtUp: 0,
    gridReads: 0,
    resynced: 0,
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
    // A failed read rejects (poll's caller retries); the connection's error events are noise.
    this.reader.on('error', () => {});
  }

  /**
   * Creates the group on every shard stream (and the stream, if the writer has not yet). With a
   * durable store, a Redis that lacks the feed's `rebuilt` key (new, or it lost its data while
   * no consumer ran) is rebuilt from the store and every followed profile caught up first.
   */
  async start(): Promise<void> {
    await this.createGroups(this.settings.startAt ?? '0');
    if (this.settings.store && (await this.redis.exists(this.keys.rebuilt())) === 0) {
      await this.recover();
    }
  }

  /**
   * Follows in the durable store and in Redis; a profile the feed already tracks is put into the
   * follower's timeline at once (its posts from the store), so a follow backfills.
   */
  async follow(follower: string, profile: string): Promise<void> {
    const store = this.settings.store;
    await store?.follow(follower, profile);
    await followInRedis(this.redis, this.keys, follower, profile);
    await store?.withProfile(profile, async (tx) => {
      if (tx.mark) await this.resync(tx, profile, [follower]);
    });
  }

  /**
   * One round: claims (when due), own entries left pending, new entries. Returns entries read.
   * A `NOGROUP` (Redis lost the stream and its group) is answered by a recovery, not thrown.
   */
  async poll(): Promise<number> {
    try {
      return await this.round();
    } catch (err) {
      if (!String((err as Error).message).startsWith('NOGROUP')) throw err;
      await this.recover();
      return 1;
    }
  }

  /**
   * After a Redis data loss: the groups again from the start of every stream (the write side
   * publishes the retained history again, which the watermarks dedupe: `$` would skip it), then,
   * with a durable store, every followed profile under its row: its followers' Redis state from
   * the store (when the feed's own keys are gone too), and what the lost stream held from the
   * catch-up route. Entries pending before the loss are gone with the stream.
   */
  async recover(): Promise<void> {
    this.stats.recoveries += 1;
    await this.createGroups('0');
    this.deferredEntries.clear();
    this.ownPendingDue = true;
    const { store, api } = this.settings;
    if (!store) return;
    const rebuild = (await this.redis.exists(this.keys.rebuilt())) === 0;
    for (const profile of await store.followedProfiles()) {
      await store.withProfile(profile, async (tx) => {
        if (rebuild && tx.mark) await this.resync(tx, profile, tx.followers);
        if (api) await this.repair(tx, profile, api);
      });
    }
    await this.redis.set(this.keys.rebuilt(), new Date().toISOString());
  }

  private async createGroups(start: '0' | '$'): Promise<void> {
    for (const key of this.settings.streamKeys) {
      try {
        await this.redis.xgroup('CREATE', key, this.settings.group, start, 'MKSTREAM');
      } catch (err) {
        if (!String((err as Error).message).startsWith('BUSYGROUP')) throw err;
      }
    }
  }

  private async round(): Promise<number> {
    let handled = 0;
    if (Date.now() - this.lastClaim >= this.settings.claimEveryMs) {
      this.lastClaim = Date.now();
      // The feed's own keys gone while the streams stayed (another Redis, or a flush of them).
      if (this.settings.store && (await this.redis.exists(this.keys.rebuilt())) === 0) {
        await this.recover();
        handled += 1;
      }
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
    const retry = deferredSince !== undefined;
    const force = retry && Date.now() - deferredSince >= this.settings.gapTimeoutMs;
    if (this.settings.store) {
      await this.handleDurable(this.settings.store, key, id, tag, event, deferredSince, force);
      return;
    }
    const planned = planOf(event);
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

  /**
   * The durable path: the event decided against the profile's durable watermark, under its row
   * (store.ts). Next version: applied to the store and fanned out. At or below it, or of an
   * older generation: a duplicate. Further ahead: left pending like a gap above, and after
   * `gapTimeoutMs` the profile is repaired from the catch-up route (or, without the API, applied
   * over the gap). A new generation, or a profile the feed has no state of yet: repaired.
   */
  private async handleDurable(
    store: FeedStore,
    key: string,
    id: string,
    tag: string,
    event: ChangeEvent,
    deferredSince: number | undefined,
    force: boolean,
  ): Promise<void> {
    const profile = event.profile_id;
    if (this.settings.autoFollow && (await store.followersOf(profile)).length === 0) {
      await this.settings.autoFollow(profile);
    }
    const { api } = this.settings;
    const verdict = await store.withProfile(profile, async (tx) => {
      if (tx.followers.length === 0) return 'not_following';
      const found = durableVerdict(tx.mark, event);
      if (found === 'apply') await this.applyDurable(tx, event);
      else if (found === 'repair' || (found === 'gap' && force)) {
        if (api) {
          await this.repair(tx, profile, api);
          // The repair reaches the head, which holds this event; should a stale read stop short
          // of it, the event is applied next or waits like any gap.
          const after = durableVerdict(tx.mark, event);
          if (after === 'apply') await this.applyDurable(tx, event);
          if (after === 'gap') return 'gap';
        } else {
          await this.applyDurable(tx, event);
          if (found === 'gap') this.stats.gapsAccepted += 1;
        }
      } else if (found === 'gap') return 'gap';
      else this.stats.duplicates += deferredSince === undefined ? 1 : 0;
      return 'done';
    });
    if (verdict === 'not_following') this.stats.notFollowing += 1;
    if (verdict === 'gap') {
      this.stats.deferred += 1;
      this.deferredEntries.set(tag, deferredSince ?? Date.now());
      return;
    }
    await this.ack(key, id, tag);
  }

  /** One version: the profile's durable set and watermark, then every follower's script. */
  private async applyDurable(tx: ProfileTx, event: ChangeEvent): Promise<void> {
    const op = feedOpOf(event.kind);
    const ids = event.post_ids.map((p) => BigInt(p));
    await tx.advance(
      { generation: BigInt(event.generation), version: BigInt(event.version) },
      op === 'add' ? ids : [],
      op === 'remove' ? ids : [],
    );
    const planned = planOf(event);
    const results = await Promise.all(
      tx.followers.map((f) =>
        applyForFollower(this.redis, this.keys, f, planned, this.settings.audit),
      ),
    );
    const stale: string[] = [];
    results.forEach((r, i) => {
      if (r.verdict !== 'apply') stale.push(tx.followers[i]!);
      else {
        this.stats.applied += 1;
        this.stats.inserts += r.inserted;
        this.stats.removals += r.removed;
        this.stats.kept += r.kept;
        this.stats.reinsertsRefused += r.refused;
      }
    });
    // A follower whose Redis state is not at the store's previous version (its keys were lost,
    // or a crash fanned this version out before the store committed it): set from the store.
    if (stale.length > 0) await this.resync(tx, event.profile_id, stale);
  }

  /**
   * Catches the profile up from the catch-up route, from its durable watermark on. Reads the
   * grid instead when the route answers 410, when the watermark is ahead of the service's head
   * (the grid's history went back), when a returned version does not follow the last one, or
   * when it opens another generation (versions may name other states there), or when the feed
   * has no state of the profile yet.
   */
  private async repair(tx: ProfileTx, profile: string, api: Get): Promise<void> {
    let mark = tx.mark;
    if (mark === undefined) return this.readGridInto(tx, profile, api);
    const from = mark.version;
    let after = mark.version;
    for (;;) {
      const page = await changesAfter(api, profile, after);
      if (page.kind === 'gone' || page.gridVersion < mark.version) {
        return this.readGridInto(tx, profile, api);
      }
      for (const change of page.changes) {
        const generation = BigInt(change.generation);
        const version = BigInt(change.version);
        if (
          version !== mark.version + 1n ||
          (mark.generation !== undefined && generation !== mark.generation)
        ) {
          return this.readGridInto(tx, profile, api);
        }
        await this.applyDurable(tx, change);
        mark = tx.mark!;
      }
      if (page.next === undefined) break;
      after = page.next;
    }
    this.stats.repaired += 1;
    this.stats.caughtUp += Number(mark.version - from);
  }

  private async readGridInto(tx: ProfileTx, profile: string, api: Get): Promise<void> {
    const grid = await readGrid(api, profile);
    await tx.replace({ generation: grid.generation, version: grid.version }, grid.posts);
    this.stats.gridReads += 1;
    await this.resync(tx, profile, tx.followers);
  }

  /** Sets the followers' share of the profile to the store's set and watermark. */
  private async resync(tx: ProfileTx, profile: string, followers: readonly string[]) {
    const mark = tx.mark;
    if (!mark) return;
    const posts = await tx.posts();
    const text = formatWatermark({ generation: mark.generation ?? 0n, version: mark.version });
    for (const f of followers) {
      const r = await resyncFollower(
        this.redis,
        this.keys,
        f,
        profile,
        text,
        posts,
        this.settings.audit,
      );
      this.stats.resynced += 1;
      this.stats.inserts += r.inserted;
      this.stats.removals += r.removed;
    }
  }

  private async ack(key: string, id: string, tag: string): Promise<void> {
    await this.redis.xack(key, this.settings.group, id);
    this.deferredEntries.delete(tag);
    this.stats.events += 1;
  }
}
