/**
 * The service's change stream and change log, wired once (service/wiring.ts): the log store the
 * catch-up route reads, and, when Redis is configured and CHANGES_STREAM=on, the publisher the
 * grid writer hands every commit to and the sweeper the process runs (docs/integration.md
 * "Change stream").
 */
import type { RedisGuard } from '../../cache/redis.js';
import type { Config } from '../../config/config.js';
import { changesAfter, type ChangesAfter } from '../../domain/change-log.js';
import type { ChangeLogStore } from '../../store/change-log-store.js';
import type { GridWriter } from '../write-line/write-line.js';
import { publicationOf, type SettledPublication } from './publication.js';
import { ChangePublisher, streamSettingsOf } from './publisher.js';
import { startChangeSweeper, type ChangeSweeper } from './sweeper.js';

export interface GridChanges {
  readonly gridVersion: bigint;
  readonly generation: bigint;
  readonly page: ChangesAfter;
}

export class ChangeStream {
  /** Undefined when the stream is off (no Redis, or CHANGES_STREAM=off). */
  readonly publisher: ChangePublisher | undefined;
  private publication: SettledPublication | undefined;

  constructor(
    readonly log: ChangeLogStore,
    private readonly config: Config,
    private readonly redis: RedisGuard | undefined,
    private readonly warn: (msg: string, err?: unknown) => void = () => {},
  ) {
    this.publisher =
      redis && config.CHANGES_STREAM === 'on'
        ? new ChangePublisher(redis, log, streamSettingsOf(config), warn)
        : undefined;
  }

  /** Hands every commit of `writer` to the publisher (when the stream is on). */
  attach(writer: GridWriter): void {
    if (!this.publisher) return;
    const keepForMs = this.config.CHANGES_SWEEP_AGE_MS / 2;
    this.publication = publicationOf(this.publisher, keepForMs, this.warn);
    writer.publishWith(this.publication);
  }

  /** Resolves once every publish started so far has been answered (a CLI waits before exiting). */
  async settled(): Promise<void> {
    await this.publication?.settled();
  }

  /**
   * The sweeper of this process (undefined when the stream is off); with an interval of 0 it
   * sweeps only when asked (`sweep()`).
   */
  startSweeper(): ChangeSweeper | undefined {
    if (!this.publisher || !this.redis) return;
    return startChangeSweeper(
      this.publisher,
      this.redis,
      {
        intervalMs: this.config.CHANGES_SWEEP_INTERVAL_MS,
        ageMs: this.config.CHANGES_SWEEP_AGE_MS,
      },
      this.warn,
    );
  }

  /** The catch-up read: the changes after `after` from the change log (Cassandra). */
  async after(profileId: bigint, after: bigint, limit: number): Promise<GridChanges> {
    const log = await this.log.read(profileId);
    return {
      gridVersion: log.version,
      generation: log.generation,
      page: changesAfter(log.records, log.version, after, limit),
    };
  }
}
