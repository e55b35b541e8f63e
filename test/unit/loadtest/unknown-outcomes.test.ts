import { describe, expect, it } from 'vitest';
import type { AckedMove } from '../../../tools/loadtest/history.js';
import { resolveUnknown } from '../../../tools/loadtest/unknown-outcomes.js';

const ack = (postId: number, after: number | null, version: number, seq: number): AckedMove => ({
  postId: BigInt(postId),
  after: after === null ? null : BigInt(after),
  version: BigInt(version),
  seq,
});
const ids = (...xs: number[]) => xs.map(BigInt);
const initial = ids(1, 2, 3, 4);

describe('unknown-outcome moves resolved against the final read', () => {
  it('a version no ack names is given to the unknown move that explains the order', () => {
    // v11: 4 to the top (acked); v12: unknown "2 after 3" committed; v13: 1 to the top (acked).
    const acks = [ack(4, null, 11, 0), ack(1, null, 13, 1)];
    const unknown = [{ postId: 2n, after: 3n }];
    const r = resolveUnknown(initial, acks, unknown, { seeded: 10n, final: 13n }, ids(1, 4, 3, 2));
    expect(r).toEqual({ kind: 'resolved', committed: 1, notApplied: 0 });
  });

  it('an unknown move that did not commit leaves no gap and is resolved as not applied', () => {
    const acks = [ack(4, null, 11, 0)];
    const unknown = [{ postId: 2n, after: 3n }];
    const r = resolveUnknown(initial, acks, unknown, { seeded: 10n, final: 11n }, ids(4, 1, 2, 3));
    expect(r).toEqual({ kind: 'resolved', committed: 0, notApplied: 1 });
  });

  it('a commit nobody explains (a move applied twice, say) is a violation', () => {
    const acks = [ack(4, null, 11, 0)];
    const r = resolveUnknown(initial, acks, [], { seeded: 10n, final: 12n }, ids(4, 1, 2, 3));
    expect(r.kind).toBe('unexplained');
  });

  it('an order no assignment gives is a violation', () => {
    const acks = [ack(4, null, 11, 0)];
    const unknown = [{ postId: 2n, after: 3n }];
    const r = resolveUnknown(initial, acks, unknown, { seeded: 10n, final: 12n }, ids(3, 4, 1, 2));
    expect(r.kind).toBe('unexplained');
  });

  it('many unknown moves and no gap: none committed, resolved without a search', () => {
    const acks = [ack(4, null, 11, 0)];
    const unknown = Array.from({ length: 40 }, (_, i) => ({
      postId: 2n,
      after: i % 2 ? 3n : null,
    }));
    const r = resolveUnknown(initial, acks, unknown, { seeded: 10n, final: 11n }, ids(4, 1, 2, 3));
    expect(r).toEqual({ kind: 'resolved', committed: 0, notApplied: 40 });
  });

  it('many unknown moves and one gap: each is tried in it', () => {
    const acks = [ack(4, null, 11, 0)];
    const unknown = Array.from({ length: 40 }, (_, i) => ({
      postId: 1n,
      after: i === 33 ? 3n : 2n,
    }));
    const r = resolveUnknown(initial, acks, unknown, { seeded: 10n, final: 12n }, ids(4, 2, 3, 1));
    expect(r).toEqual({ kind: 'resolved', committed: 1, notApplied: 39 });
  });

  it('too many assignments to try is said so, not guessed', () => {
    const acks = [ack(4, null, 11, 0)];
    const unknown = Array.from({ length: 40 }, () => ({ postId: 1n, after: 2n }));
    const r = resolveUnknown(initial, acks, unknown, { seeded: 10n, final: 13n }, ids(4, 2, 1, 3));
    expect(r.kind).toBe('too_many');
  });
});
