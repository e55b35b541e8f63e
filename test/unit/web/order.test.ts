/**
 * The editor's order arithmetic (web/src/order.ts): what the user sees after a drop is what the
 * server computes from the anchor sent; a batch body covers exactly the changed range; a replay
 * after 412 asks only about vanished anchors.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  anchorOf,
  applyMove,
  moveIndex,
  newerThan,
  patchFor,
  replayMoves,
  type Move,
  type OrderPatch,
} from '../../../web/src/order.js';

const SEED = 20261201;
const ids = (n: number) => Array.from({ length: n }, (_, i) => `p${i}`);

/** A display order (distinct IDs), a pin count and a drag from/to among the unpinned slots. */
const drag = fc.integer({ min: 1, max: 30 }).chain((n) =>
  fc.integer({ min: 0, max: Math.min(3, n - 1) }).chain((pins) =>
    fc.record({
      display: fc.shuffledSubarray(ids(n), { minLength: n, maxLength: n }),
      pins: fc.constant(pins),
      from: fc.integer({ min: pins, max: n - 1 }),
      to: fc.integer({ min: pins, max: n - 1 }),
    }),
  ),
);

/** What the server does with a range body (or a whole order). */
function applyPatch(base: readonly string[], p: OrderPatch): string[] {
  if (p.above === undefined) return p.post_ids.slice();
  const start = p.above === null ? 0 : base.indexOf(p.above) + 1;
  const end = p.below === null ? base.length : base.indexOf(p.below!);
  expect([...base.slice(start, end)].sort()).toEqual([...p.post_ids].sort());
  return [...base.slice(0, start), ...p.post_ids, ...base.slice(end)];
}

describe('a drop and its anchor', () => {
  it('the anchor sent reproduces, on the server, the order the user sees', () => {
    fc.assert(
      fc.property(drag, ({ display, pins, from, to }) => {
        const id = display[from]!;
        const shown = moveIndex(display, from, to);
        const after = anchorOf(shown, pins, id);
        expect(applyMove(display.slice(pins), { postId: id, after })).toEqual(shown.slice(pins));
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('right after the pins is the top (null), never a pinned post', () => {
    expect(anchorOf(['pin', 'a', 'b'], 1, 'a')).toBeNull();
    expect(anchorOf(['pin', 'a', 'b'], 1, 'b')).toBe('a');
    expect(applyMove(['a', 'b'], { postId: 'b', after: 'gone' })).toBeUndefined();
    expect(applyMove(['a', 'b'], { postId: 'c', after: null })).toBeUndefined();
  });
});

describe('patchFor', () => {
  it('covers exactly the changed range and reproduces the new order', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 40 })
          .chain((n) =>
            fc.tuple(
              fc.constant(ids(n)),
              fc.shuffledSubarray(ids(n), { minLength: n, maxLength: n }),
            ),
          ),
        ([base, next]) => {
          const p = patchFor(base, next);
          if (base.join() === next.join()) {
            expect(p).toBeUndefined();
            return;
          }
          expect(applyPatch(base, p!)).toEqual(next);
          // Minimal: the range's first and last posts are ones whose place changed.
          const start = next.indexOf(p!.post_ids[0]!);
          const end = start + p!.post_ids.length - 1;
          expect(base[start]).not.toBe(next[start]);
          expect(base[end]).not.toBe(next[end]);
        },
      ),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('sends a range for a local change on a long grid', () => {
    const base = ids(500);
    const next = moveIndex(base, 250, 248);
    expect(patchFor(base, next)).toEqual({
      post_ids: ['p250', 'p248', 'p249'],
      above: 'p247',
      below: 'p251',
    });
  });
});

describe('replayMoves after a 412', () => {
  const never = async () => {
    throw new Error('must not ask');
  };

  it('replayed on the order they were recorded on, moves give what the user saw', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(drag, { minLength: 1, maxLength: 1 }), async ([d]) => {
        const { display, pins, from, to } = d!;
        const id = display[from]!;
        const shown = moveIndex(display, from, to);
        const move: Move = { postId: id, after: anchorOf(shown, pins, id) };
        const main = display.slice(pins);
        const r = await replayMoves(main, display.slice(0, pins), [move], never);
        expect(r).toEqual({ order: shown.slice(pins), issues: [] });
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('asks only about a vanished anchor, and follows the answer', async () => {
    const fresh = ['a', 'b', 'c', 'd']; // 'x' was archived elsewhere; 'y' deleted
    const moves: Move[] = [
      { postId: 'd', after: 'x' },
      { postId: 'y', after: 'a' },
      { postId: 'c', after: 'a' },
    ];
    const asked: Move[] = [];
    const top = await replayMoves(fresh, [], moves, async (m) => (asked.push(m), 'top'));
    expect(top.order).toEqual(['d', 'a', 'c', 'b']);
    expect(asked).toEqual([moves[0]]);
    expect(top.issues.map((i) => i.kind)).toEqual(['anchor_gone', 'post_gone']);
    const skip = await replayMoves(fresh, [], moves, async () => 'skip');
    expect(skip.order).toEqual(['a', 'c', 'b', 'd']);
  });

  it('a pinned anchor means the top; a post pinned meanwhile is left alone', async () => {
    const r = await replayMoves(
      ['a', 'b', 'c'],
      ['p'],
      [
        { postId: 'c', after: 'p' },
        { postId: 'p', after: 'a' },
      ],
      never,
    );
    expect(r.order).toEqual(['c', 'a', 'b']);
    expect(r.issues.map((i) => i.kind)).toEqual(['post_pinned']);
  });
});

it('compares 64-bit versions without losing digits', () => {
  expect(newerThan('9007199254740993', '9007199254740992')).toBe(true);
  expect(newerThan('10', '9')).toBe(true);
  expect(newerThan('9', '9')).toBe(false);
});
