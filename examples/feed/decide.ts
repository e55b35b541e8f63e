/**
 * The pure half of the reference feed consumer: what one change event (docs/integration.md,
 * "Reference feed consumer") means for a follower's home timeline, and whether a follower has
 * already applied it. No Redis here; scripts.ts does the same decisions atomically in Lua, and the
 * tests hold both to this module (test/unit/feed/, test/integration/changes/feed.test.ts).
 */
import { z } from 'zod';
import { TIMESTAMP_SHIFT } from '../../src/domain/ids.js';

const Decimal = z.string().regex(/^(0|[1-9][0-9]{0,18})$/);

/** Every kind of the change stream contract, grouped by what a follower's feed does. */
export const ADD_KINDS = [
  'created',
  'registered',
  'imported',
  'unarchived',
  'collaborator_accepted',
] as const;
export const REMOVE_KINDS = [
  'deleted',
  'archived',
  'taken_down',
  'collaborator_left',
  'collaborator_removed',
] as const;
export const NO_FEED_KINDS = [
  'moved',
  'pinned',
  'unpinned',
  'reset',
  'batch_reordered',
  'undone',
  'collaborator_declined',
  'changed',
] as const;
const KINDS = [...ADD_KINDS, ...REMOVE_KINDS, ...NO_FEED_KINDS] as const;
export type Kind = (typeof KINDS)[number];

// Stripping, not strict: the write side may add fields (the contract's `…`) without breaking us.
export const ChangeEvent = z.object({
  profile_id: Decimal,
  version: Decimal,
  generation: Decimal,
  at: z.string(),
  kind: z.enum(KINDS),
  post_ids: z.array(Decimal),
});
export type ChangeEvent = z.infer<typeof ChangeEvent>;

/** Parses a stream entry's `event` field; undefined for anything that is not a contract event. */
export function parseEvent(json: string): ChangeEvent | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return undefined;
  }
  const parsed = ChangeEvent.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

export type FeedOp = 'add' | 'remove' | 'none';

const OPS = new Map<Kind, FeedOp>([
  ...ADD_KINDS.map((k) => [k, 'add'] as const),
  ...REMOVE_KINDS.map((k) => [k, 'remove'] as const),
  ...NO_FEED_KINDS.map((k) => [k, 'none'] as const),
]);

/**
 * What a kind does to the feeds of the profile's followers. `none` is the point of the whole
 * exercise: a move, pin, reset or batch reorder changes where a post sits on one grid, never when
 * it was made, so it neither re-inserts the post nor moves it in anyone's feed.
 */
export const feedOpOf = (kind: Kind): FeedOp => OPS.get(kind) ?? 'none';

/**
 * Timeline score and member of a post. A double holds 53 bits, a post ID 63, so the score is the
 * ID's millisecond (40 bits, exact) and the member is the ID zero-padded to 19 digits: Redis
 * orders equal scores by member bytes, which for equal-length decimals is numeric order. The
 * timeline is thus ordered exactly by post ID (creation time, then worker and sequence).
 * Example: ID 4611686018427387904 (2^62) -> score 549755813888, member "4611686018427387904".
 */
export const feedScore = (postId: bigint): number => Number(postId >> TIMESTAMP_SHIFT);
export const feedMember = (postId: bigint): string => postId.toString().padStart(19, '0');
export const postIdOfMember = (member: string): bigint => BigInt(member);

/** One event as the apply script takes it (scripts.ts). */
export interface PlannedEvent {
  readonly profile: string;
  readonly generation: string;
  readonly version: string;
  readonly op: FeedOp;
  /** member, score, member, score, … of the event's posts. */
  readonly posts: readonly string[];
}

export const planOf = (event: ChangeEvent): PlannedEvent => ({
  profile: event.profile_id,
  generation: event.generation,
  version: event.version,
  op: feedOpOf(event.kind),
  posts: event.post_ids.flatMap((p) => [feedMember(BigInt(p)), String(feedScore(BigInt(p)))]),
});

/** What a follower has applied of one followed profile: the last (generation, version). */
export interface Watermark {
  readonly generation: bigint;
  readonly version: bigint;
}

export type Verdict = 'apply' | 'duplicate' | 'gap';

/**
 * Whether a follower applies an event of a profile it follows, given its watermark for that
 * profile (undefined: nothing applied yet and no baseline, so the first event seen starts it).
 * - the next version: apply (also when it opens a newer generation: versions are never reused,
 *   docs/architecture.md, so a generation bump is the next version like any other);
 * - a later version: an earlier one is still pending somewhere (another consumer holds it, or it
 *   waits to be claimed): leave this one pending and retry, so per-profile order holds. Applying
 *   a newer generation's first event early would make the older versions look stale and lose them;
 * - a version at or below the watermark: a duplicate (redelivered, published twice, or claimed
 *   from a dead consumer that had applied it), changes nothing; unless it comes in a newer
 *   generation: then the profile's history started again (its versions restarted) and the
 *   watermark restarts at this event;
 * - an older generation: a duplicate.
 * The Lua twin is APPLY_EVENT in scripts.ts.
 */
export function verdictOf(mark: Watermark | undefined, event: Watermark): Verdict {
  if (mark === undefined || event.version === mark.version + 1n) {
    return mark === undefined || event.generation >= mark.generation ? 'apply' : 'duplicate';
  }
  if (event.version > mark.version)
    return event.generation >= mark.generation ? 'gap' : 'duplicate';
  return event.generation > mark.generation ? 'apply' : 'duplicate';
}

export const formatWatermark = (m: Watermark): string => `${m.generation}:${m.version}`;
export function parseWatermark(text: string | null | undefined): Watermark | undefined {
  const match = /^(\d+):(\d+)$/.exec(text ?? '');
  return match ? { generation: BigInt(match[1]!), version: BigInt(match[2]!) } : undefined;
}

/** A profile's durable watermark (store.ts); the generation is unknown after some grid reads. */
export interface ProfileMark {
  readonly generation: bigint | undefined;
  readonly version: bigint;
}

/**
 * An event against a profile's durable watermark: `apply` the next version (of the same
 * generation, or of any when the generation is unknown); `duplicate` at or below it, or of an
 * older generation; `gap` further ahead; `repair` a newer generation, or no state yet.
 */
export function durableVerdict(
  mark: ProfileMark | undefined,
  event: ChangeEvent,
): 'apply' | 'duplicate' | 'gap' | 'repair' {
  if (mark === undefined) return 'repair';
  const generation = BigInt(event.generation);
  const version = BigInt(event.version);
  if (mark.generation !== undefined && generation < mark.generation) return 'duplicate';
  if (mark.generation !== undefined && generation > mark.generation) return 'repair';
  if (version <= mark.version) return 'duplicate';
  return version === mark.version + 1n ? 'apply' : 'gap';
}
