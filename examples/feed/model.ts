/**
 * The feed's semantics in memory: one follower's application of one event, exactly as the Lua
 * script APPLY_EVENT (scripts.ts) does it in Redis. The unit tests check its properties with
 * fast-check; the integration test replays the events it XADDs through this model and compares
 * the Redis timelines with it, so the script and the model cannot drift apart silently.
 */
import {
  feedMember,
  feedOpOf,
  feedScore,
  verdictOf,
  type ChangeEvent,
  type Verdict,
  type Watermark,
} from './decide.js';

/** What one follower's application of one event did (the script returns the same). */
export interface ApplyResult {
  /** `forced`: applied over a gap (see FeedConsumer's gap timeout). */
  readonly verdict: Verdict | 'forced' | 'not_following';
  readonly inserted: number;
  /** Posts that left the timeline. */
  readonly removed: number;
  /** Posts a remove kind left in place because another followed grid still holds them. */
  readonly kept: number;
  /** Posts of a move-like event already in the timeline: a naive consumer would re-insert them. */
  readonly refused: number;
}

const nothing = (verdict: ApplyResult['verdict']): ApplyResult => ({
  verdict,
  inserted: 0,
  removed: 0,
  kept: 0,
  refused: 0,
});

export class FeedModel {
  private readonly following = new Map<string, Set<string>>();
  private readonly marks = new Map<string, Watermark>();
  /** follower -> member -> score. */
  private readonly timelines = new Map<string, Map<string, number>>();
  /** follower -> member -> the followed profiles whose grid holds the post. */
  private readonly sources = new Map<string, Map<string, Set<string>>>();
  /** follower|member -> how many times the post entered the timeline. */
  readonly inserts = new Map<string, number>();

  follow(follower: string, profile: string, baseline?: Watermark): void {
    const set = this.following.get(follower) ?? new Set<string>();
    set.add(profile);
    this.following.set(follower, set);
    if (baseline) this.marks.set(`${follower}|${profile}`, baseline);
  }

  /** Unfollowing takes the profile's posts out of the timeline (unless another grid holds them). */
  unfollow(follower: string, profile: string): void {
    this.following.get(follower)?.delete(profile);
    this.marks.delete(`${follower}|${profile}`);
    const timeline = this.timelines.get(follower);
    for (const [member, held] of this.sources.get(follower) ?? []) {
      if (!held.delete(profile) || held.size > 0) continue;
      this.sources.get(follower)?.delete(member);
      timeline?.delete(member);
    }
  }

  followersOf(profile: string): string[] {
    return [...this.following].filter(([, s]) => s.has(profile)).map(([f]) => f);
  }

  timeline(follower: string): ReadonlyMap<string, number> {
    return this.timelines.get(follower) ?? new Map();
  }

  /** `force`: apply over a gap (the consumer's gap timeout ran out). */
  apply(follower: string, event: ChangeEvent, force = false): ApplyResult {
    const profile = event.profile_id;
    if (!this.following.get(follower)?.has(profile)) return nothing('not_following');
    const key = `${follower}|${profile}`;
    const at = { generation: BigInt(event.generation), version: BigInt(event.version) };
    const found = verdictOf(this.marks.get(key), at);
    const verdict = found === 'gap' && force ? 'forced' : found;
    if (verdict !== 'apply' && verdict !== 'forced') return nothing(verdict);
    this.marks.set(key, at);
    const timeline = this.timelines.get(follower) ?? new Map<string, number>();
    this.timelines.set(follower, timeline);
    const sources = this.sources.get(follower) ?? new Map<string, Set<string>>();
    this.sources.set(follower, sources);
    let inserted = 0;
    let removed = 0;
    let kept = 0;
    let refused = 0;
    const op = feedOpOf(event.kind);
    for (const id of event.post_ids) {
      const member = feedMember(BigInt(id));
      const held = sources.get(member) ?? new Set<string>();
      if (op === 'add') {
        held.add(profile);
        sources.set(member, held);
        if (!timeline.has(member)) {
          timeline.set(member, feedScore(BigInt(id)));
          inserted += 1;
          const n = `${follower}|${member}`;
          this.inserts.set(n, (this.inserts.get(n) ?? 0) + 1);
        }
      } else if (op === 'remove') {
        held.delete(profile);
        if (held.size > 0) kept += timeline.has(member) ? 1 : 0;
        else {
          sources.delete(member);
          if (timeline.delete(member)) removed += 1;
        }
      } else if (timeline.has(member)) refused += 1;
    }
    return { verdict, inserted, removed, kept, refused };
  }
}
