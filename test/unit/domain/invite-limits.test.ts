/**
 * The invitation limits (domain/invite-limits.ts) as a model: one author's invitations can hold
 * at most MAX_PENDING_PER_AUTHOR of an inbox, so they can never fill it for others; the author's
 * daily total is bounded whatever the inboxes hold; and what the author is told never tells a block
 * from the invitee's other limits (issue 31).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_INVITES_PER_AUTHOR_DAY,
  MAX_PENDING_INVITES,
  MAX_PENDING_PER_AUTHOR,
  inviteDay,
  refusalOf,
} from '../../../src/domain/invite-limits.js';

describe('refusalOf', () => {
  it("the author's own quota first; then a block, the pair cap and the inbox cap read the same", () => {
    const open = { blocked: false, pending: 0, pendingFromAuthor: 0 };
    expect(refusalOf(open, 0)).toBeUndefined();
    expect(refusalOf({ ...open, blocked: true, pending: 99 }, 999)).toBe('daily_limit');
    expect(refusalOf({ ...open, blocked: true }, 0)).toBe('not_delivered');
    expect(refusalOf({ ...open, pending: 99, pendingFromAuthor: 3 }, 0)).toBe('not_delivered');
    expect(refusalOf({ ...open, pending: MAX_PENDING_INVITES }, 0)).toBe('not_delivered');
    expect(refusalOf({ ...open, pending: MAX_PENDING_INVITES - 1 }, 0)).toBeUndefined();
    expect(refusalOf(open, MAX_INVITES_PER_AUTHOR_DAY)).toBe('daily_limit');
    expect(refusalOf(open, MAX_INVITES_PER_AUTHOR_DAY - 1)).toBeUndefined();
  });

  it('tells the author nothing that tells a block from the other refusals', () => {
    const facts = fc.record({
      blocked: fc.boolean(),
      pending: fc.integer({ min: 0, max: 2 * MAX_PENDING_INVITES }),
      pendingFromAuthor: fc.integer({ min: 0, max: 2 * MAX_PENDING_PER_AUTHOR }),
    });
    const sent = fc.integer({ min: 0, max: 2 * MAX_INVITES_PER_AUTHOR_DAY });
    const fullInbox = { blocked: false, pending: MAX_PENDING_INVITES, pendingFromAuthor: 0 };
    const pairCap = { blocked: false, pending: 0, pendingFromAuthor: MAX_PENDING_PER_AUTHOR };
    fc.assert(
      fc.property(facts, sent, (f, s) => {
        // Whatever else holds, a block reads as a full inbox and as the pair cap would.
        const blocked = refusalOf({ ...f, blocked: true }, s);
        expect(blocked).toBe(refusalOf(fullInbox, s));
        expect(blocked).toBe(refusalOf(pairCap, s));
        // The author's own quota reads the same whatever the invitee's state.
        if (s >= MAX_INVITES_PER_AUTHOR_DAY) expect(refusalOf(f, s)).toBe('daily_limit');
      }),
    );
  });

  it('one author never holds more than its share of an inbox, so others still get in', () => {
    // A sequence of invitation attempts by several authors to one inbox, applied one by one.
    const attempts = fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 400 });
    fc.assert(
      fc.property(attempts, fc.integer({ min: 0, max: 20 }), (authors, late) => {
        const held = new Map<number, number>();
        let pending = 0;
        for (const a of authors) {
          const facts = { blocked: false, pending, pendingFromAuthor: held.get(a) ?? 0 };
          if (refusalOf(facts, 0) === undefined) {
            held.set(a, (held.get(a) ?? 0) + 1);
            pending += 1;
          }
        }
        for (const n of held.values()) expect(n).toBeLessThanOrEqual(MAX_PENDING_PER_AUTHOR);
        expect(pending).toBeLessThanOrEqual(MAX_PENDING_INVITES);
        // A newcomer is refused only when enough *distinct* authors filled the inbox.
        const newcomer = refusalOf({ blocked: false, pending, pendingFromAuthor: 0 }, 0);
        if (held.has(late)) return;
        if (newcomer === 'not_delivered')
          expect(held.size).toBeGreaterThanOrEqual(MAX_PENDING_INVITES / MAX_PENDING_PER_AUTHOR);
        else expect(newcomer).toBeUndefined();
      }),
    );
  });

  it('counts days in UTC', () => {
    expect(inviteDay(Date.UTC(2026, 0, 1, 0, 0, 0))).toBe(inviteDay(Date.UTC(2026, 0, 1, 23, 59)));
    expect(inviteDay(Date.UTC(2026, 0, 2))).toBe(inviteDay(Date.UTC(2026, 0, 1)) + 1);
  });
});
