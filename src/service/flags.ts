/**
 * Operational flags as every request sees them: read from Cassandra (store/flags-store.ts) and
 * held in memory, refreshed by polling on use rather than by a timer (an idle process, a test
 * harness or a CLI run leaves nothing running behind it).
 *
 * Freshness (the bound docs/ops/rollout.md promises): values younger than `refreshMs` are used
 * as they are; between `refreshMs` and 2 × `refreshMs` they are used while one refresh runs in the
 * background; older than that the caller waits for the refresh. So a decision is never based on
 * values read more than 2 × FLAGS_REFRESH_MS (plus one Cassandra read) ago: with the default
 * 500 ms, every process follows a flip within about one second, and always within 2 s (the
 * config caps FLAGS_REFRESH_MS at 900 ms).
 *
 * A flag without a row is on: the switches exist to turn the feature off in an incident, so an
 * empty table (a new keyspace) runs the feature. A failed refresh keeps the last values read (or
 * the defaults, before the first success) and is retried on later use; it is never a request error.
 */
import { DomainError } from '../domain/errors.js';
import type { Config } from '../config/config.js';
import { consistencyOf, type Cql } from '../store/cassandra.js';
import { FlagsStore } from '../store/flags-store.js';
import type { StatementScope } from '../store/statement-scope.js';

/**
 * `reads.overrides`: the kill switch of user-defined order; off = every grid read is
 * chronological (pins first), the overrides stay stored. `writes.reorder`: moves, batch order,
 * undo and reset; off = 503 feature_disabled (the editor is hidden).
 */
export const FLAG_NAMES = ['reads.overrides', 'writes.reorder'] as const;
export type FlagName = (typeof FLAG_NAMES)[number];

/** What a refused reorder write tells clients: a switched-off feature stays off for minutes. */
const RETRY_AFTER_S = 60;

export interface FlagState {
  readonly name: FlagName;
  readonly enabled: boolean;
  /** false = no row: the default (on) applies. */
  readonly stored: boolean;
}

export class Flags {
  private values = new Map<string, boolean>();
  private loadedAt = Number.NEGATIVE_INFINITY;
  private refreshing: Promise<boolean> | undefined;
  /** Refreshes that failed (the last values stayed in use). */
  failures = 0;

  constructor(
    private readonly store: FlagsStore,
    private readonly refreshMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** How old the values behind a decision can be (see the header), in ms. */
  get boundMs(): number {
    return 2 * this.refreshMs;
  }

  /** The flag, refreshed first when the values are too old to use (see the header). */
  async isEnabled(name: FlagName): Promise<boolean> {
    return this.held(name) ?? (await this.refresh(), this.values.get(name) ?? true);
  }

  /**
   * The flag when the values may be used as they are (younger than `refreshMs`, or younger than
   * 2 × `refreshMs` while one refresh runs in the background); undefined when they must be
   * refreshed first.
   */
  held(name: FlagName): boolean | undefined {
    const age = this.now() - this.loadedAt;
    if (age >= 2 * this.refreshMs) return undefined;
    if (age >= this.refreshMs) void this.refresh();
    return this.values.get(name) ?? true;
  }

  /**
   * Throws feature_disabled (503, Retry-After) when `name` is off. Answers without a promise
   * round when the values need no refresh: it runs before every write.
   */
  require(name: FlagName): Promise<void> | undefined {
    const on = this.held(name);
    if (on === true) return undefined;
    if (on === false) return Promise.reject(disabled(name));
    return this.isEnabled(name).then((yes) => (yes ? undefined : Promise.reject(disabled(name))));
  }

  /** Every known flag, read from Cassandra now (an operator wants the stored truth). */
  async list(): Promise<FlagState[]> {
    if (!(await this.refresh())) {
      throw new DomainError('unavailable', 'the flags could not be read from Cassandra');
    }
    return FLAG_NAMES.map((name) => {
      const v = this.values.get(name);
      return { name, enabled: v ?? true, stored: v !== undefined };
    });
  }

  async set(name: string, enabled: boolean, scope?: StatementScope): Promise<FlagState> {
    const flag = flagName(name);
    await this.store.set(flag, enabled, scope);
    // This process follows at once; the others within the bound above.
    this.values.set(flag, enabled);
    return { name: flag, enabled, stored: true };
  }

  /** One refresh at a time; never rejects (false = failed, the last values stay in use). */
  private refresh(): Promise<boolean> {
    this.refreshing ??= (async () => {
      const started = this.now();
      try {
        this.values = await this.store.readAll();
        this.loadedAt = started;
        return true;
      } catch {
        this.failures += 1;
        // Retried by the next use, in the background: a down store must not stall every request.
        this.loadedAt = Math.max(this.loadedAt, started - this.refreshMs);
        return false;
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }
}

/** The process's flags reader over `cql`, as configured (scope, refresh). */
export const flagsOf = (cql: Cql, config: Config): Flags =>
  new Flags(
    new FlagsStore(cql, consistencyOf(config), config.FLAGS_SCOPE),
    config.FLAGS_REFRESH_MS,
  );

/** A known flag's name, or DomainError('flag_not_found'). */
export function flagName(name: string): FlagName {
  const known = FLAG_NAMES.find((f) => f === name);
  if (!known) {
    throw new DomainError('flag_not_found', `unknown flag '${name}'`, { known: [...FLAG_NAMES] });
  }
  return known;
}

const disabled = (name: FlagName) =>
  new DomainError('feature_disabled', `${name} is switched off`, {
    flag: name,
    retry_after_s: RETRY_AFTER_S,
  });
