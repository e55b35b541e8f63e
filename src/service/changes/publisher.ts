/**
 * Publishes each committed version's change record to its shard's Redis stream, exactly once per
 * version after dedupe (docs/integration.md "Change stream"). The record itself committed in the
 * version's own conditional batch (domain/change-log.ts); publishing is a roll-forward of it,
 * like the membership effects (domain/membership.ts):
 *
 * - the writer marks its grid in the shard's pending set BEFORE its compare-and-set (`mark`),
 *   and publishes right after it (`publishCommitted`): one script XADDs the versions above the
 *   profile's watermark, advances it and refreshes or clears the mark, atomically (cache/change-stream.ts);
 * - a gap (the watermark is below the first version the writer holds: an earlier writer crashed
 *   or Redis did not answer) is filled from the change log first (`rollForward`), by this writer;
 * - a crash between the commit and the publish leaves the mark: the sweeper (sweeper.ts) rolls
 *   the grid forward from its change log once the mark is older than CHANGES_SWEEP_AGE_MS.
 *
 * Every path goes through the same script, so two of them racing publish each version once.
 * Redis not answering never fails a write: the mark or the publish is counted, and the grid is
 * owed (`owe`): this process's sweeper rolls it forward once Redis answers again (a crash before
 * that leaves it to the grid's next writer, as the mark would have told the sweeper).
 */
import { randomUUID } from 'node:crypto';
import {
  markMember,
  parseWatermark,
  shardOf,
  streamKeys,
  withChangeCommands,
  type StreamKeys,
} from '../../cache/change-stream.js';
import type { RedisGuard } from '../../cache/redis.js';
import type { Config } from '../../config/config.js';
import type { ChangeRecord } from '../../domain/change-log.js';
import type { GridVersion } from '../../domain/grid-version.js';
import {
  changesLost,
  changesPublished,
  changesPublishFailures,
  changesPublishLag,
  changesRolledForward,
} from '../../obs/change-metrics.js';
import type { ChangeLogStore } from '../../store/change-log-store.js';
import type { CommitEvent } from '../write-line/types.js';

export interface StreamSettings {
  readonly prefix: string;
  readonly shards: number;
  readonly maxLen: number;
  /** Longest wait for a mark before the batch goes ahead (CHANGES_MARK_WAIT_MS). */
  readonly markWaitMs: number;
}

export const streamSettingsOf = (config: Config): StreamSettings => ({
  prefix: config.CHANGES_KEY_PREFIX,
  shards: config.CHANGES_STREAM_SHARDS,
  maxLen: config.CHANGES_STREAM_MAXLEN,
  markWaitMs: config.CHANGES_MARK_WAIT_MS,
});

/** The event of a record (the contract: IDs and versions as decimal strings). */
export function eventOf(profileId: bigint, r: ChangeRecord): string {
  return JSON.stringify({
    profile_id: profileId.toString(),
    version: r.version.toString(),
    generation: r.generation.toString(),
    at: new Date(r.at).toISOString(),
    kind: r.kind,
    post_ids: r.postIds.map(String),
  });
}

const MAX_OWED = 10_000;

type Published = { added: number; watermark: bigint; gap: boolean };

/** A writer's mark: its member (undefined when Redis did not answer) and the watermark it read. */
export interface Mark {
  readonly member: string | undefined;
  /** The newest state published for the grid, when the mark's reply came in time. */
  readonly published?: GridVersion;
}

export class ChangePublisher {
  private readonly token = randomUUID().slice(0, 8);
  private seq = 0;
  /** Grids whose mark or publish Redis did not answer (bounded: the oldest owed goes first). */
  private readonly owedSet = new Set<bigint>();

  constructor(
    private readonly redis: RedisGuard,
    private readonly log: ChangeLogStore,
    readonly settings: StreamSettings,
    private readonly warn: (msg: string, err?: unknown) => void = () => {},
  ) {
    // Before any command: an auto-pipeline made earlier would not know the script.
    withChangeCommands(redis.client);
  }

  keysOf(profileId: bigint): StreamKeys {
    return streamKeys(this.settings.prefix, shardOf(profileId, this.settings.shards));
  }

  /**
   * Marks the grid before a batch, and reads its watermark in the same script: the mark's member
   * (undefined when Redis did not answer) and what was published. Waits at most
   * CHANGES_MARK_WAIT_MS for Redis: a slow Redis must not hold every write up to its timeout.
   * Past that the batch goes ahead with the mark still on its way (sent before the publish on the
   * same connection, so the publish still clears it) and the grid is owed too, so this process's
   * sweeper covers it even if the mark never lands.
   */
  async mark(profileId: bigint): Promise<Mark> {
    const member = markMember(profileId, `${this.token}:${++this.seq}`);
    const { pending, watermarks } = this.keysOf(profileId);
    const pid = profileId.toString();
    const sent = this.redis.run(async (c) => {
      const wm = await withChangeCommands(c).regridMark(
        pending,
        watermarks,
        Date.now(),
        member,
        pid,
      );
      return { wm };
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>(
      (r) => (timer = setTimeout(() => r('late'), this.settings.markWaitMs)),
    );
    const done = await Promise.race([sent, late]);
    clearTimeout(timer);
    if (done === 'late') {
      changesPublishFailures.inc({ step: 'mark_late' });
      this.owe(profileId);
      void sent.then((d) => (d === undefined ? this.owe(profileId) : undefined));
      return { member };
    }
    if (done !== undefined) {
      const published = parseWatermark(done.wm);
      return published ? { member, published } : { member };
    }
    changesPublishFailures.inc({ step: 'mark' });
    this.owe(profileId);
    return { member: undefined };
  }

  /** Remembers a grid this process must roll forward (Redis did not answer for it). */
  owe(profileId: bigint): void {
    this.owedSet.delete(profileId);
    this.owedSet.add(profileId);
    if (this.owedSet.size > MAX_OWED) this.owedSet.delete(this.owedSet.values().next().value!);
  }

  /** The owed grids, handed over (the sweeper owes back those it could not publish). */
  takeOwed(): bigint[] {
    const out = [...this.owedSet];
    this.owedSet.clear();
    return out;
  }

  /** Takes back the mark of a round that committed nothing. */
  async unmark(profileId: bigint, member: string): Promise<void> {
    await this.redis.run((c) => c.zrem(this.keysOf(profileId).pending, member));
  }

  /**
   * After `event`'s batch applied: its versions, then (on a gap) what the log holds. `keep`: the
   * mark stays (scored now) for the writer's next round of the grid. False if Redis failed.
   */
  async publishCommitted(
    event: CommitEvent,
    member: string | undefined,
    keep = false,
  ): Promise<boolean> {
    const from = event.before.head.version;
    const records = (event.mutation.statics?.changeLog?.records ?? []).filter(
      (r) => r.version > from && r.version <= event.version,
    );
    const marks = member ? [member] : [];
    const out = await this.publish(event.profileId, records, marks, false, keep);
    if (!out) {
      this.owe(event.profileId); // and the mark stays: a sweeper publishes them
      return false;
    }
    if (!out.gap) {
      changesPublished.inc({ by: 'writer' }, out.added);
      return true;
    }
    return (await this.rollForward(event.profileId, marks, 'writer', keep)) !== undefined;
  }

  /**
   * Publishes every retained version above the watermark, from the change log, and clears
   * `marks`. The sweeper reads it SERIAL (a crashed writer's Paxos round is settled first); a
   * writer whose own batch just applied needs no such read: its compare-and-set could only win
   * once every earlier round had committed. Versions the log no longer holds are counted lost.
   * Resolves the number published, undefined if Redis failed.
   */
  async rollForward(
    profileId: bigint,
    marks: readonly string[],
    by: 'writer' | 'sweeper',
    keep = false,
  ): Promise<number | undefined> {
    const { records } = await this.log.read(profileId, by === 'sweeper' ? 'serial' : 'commit');
    const out = await this.publish(profileId, records, marks, true, keep);
    if (!out) return undefined;
    const oldest = records[0]?.version;
    if (oldest !== undefined && oldest > out.watermark + 1n && out.added > 0) {
      changesLost.inc(Number(oldest - out.watermark - 1n));
    }
    changesPublished.inc({ by: 'roll_forward' }, out.added);
    changesRolledForward.inc({ by }, out.added);
    return out.added;
  }

  private async publish(
    profileId: bigint,
    records: readonly ChangeRecord[],
    marks: readonly string[],
    force: boolean,
    keep = false,
  ): Promise<Published | undefined> {
    const k = this.keysOf(profileId);
    const argv = [profileId.toString(), String(this.settings.maxLen), force ? '1' : '0'];
    argv.push(keep ? String(Date.now()) : '');
    argv.push(String(marks.length), ...marks);
    for (const r of records) {
      argv.push(r.generation.toString(), r.version.toString(), eventOf(profileId, r));
    }
    let reply: [number, string, string] | undefined;
    try {
      reply = await this.redis.run((c) =>
        withChangeCommands(c).regridPublishChanges(k.stream, k.watermarks, k.pending, ...argv),
      );
    } catch (err) {
      this.warn(`change stream: publish of ${profileId} failed`, err);
    }
    if (!reply) {
      changesPublishFailures.inc({ step: 'publish' });
      return undefined;
    }
    const [added, , before] = reply;
    const now = Date.now();
    for (const r of records.slice(records.length - Math.max(added, 0))) {
      changesPublishLag.observe(Math.max(0, now - r.at) / 1000);
    }
    const watermark = parseWatermark(before)?.version ?? 0n;
    return { added: Math.max(added, 0), watermark, gap: added < 0 };
  }
}
