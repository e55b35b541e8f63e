/**
 * Idempotency-Key semantics on the real Cassandra, at the service level (the HTTP tests check the
 * status codes): replay without re-applying, 422 on a different request, 409 while in flight,
 * and the crash between commit and response, injected with the writer's afterCas seam.
 */
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/domain/errors.js';
import { RING_SIZE } from '../../../src/domain/request-ring.js';
import {
  IdempotencyService,
  SimulatedCrash,
  fingerprintRequest,
  type StoredResponse,
} from '../../../src/service/idempotency/idempotency.js';
import { freshProfile, openFeatures, order, seed, type Features } from './harness.js';
import { openPerFile } from '../support/per-file.js';

let f: Features;
openPerFile(openFeatures, (opened) => (f = opened));

const render = (_r: unknown, version: bigint, _generation?: bigint): StoredResponse => ({
  status: 200,
  body: { grid_version: version.toString() },
});

/** A keyed move, the way the HTTP route does it. */
function keyedMove(
  idem: IdempotencyService,
  profileId: bigint,
  key: string,
  postId: bigint,
  after: bigint | null,
) {
  const body = JSON.stringify({ post_id: postId.toString(), after: after?.toString() ?? null });
  return idem.run(
    {
      scope: profileId,
      key,
      fingerprint: fingerprintRequest({ method: 'POST', route: '/v1/me/grid/moves', body }),
      gridProfileId: profileId,
      render,
    },
    async (ticket) => {
      const out = await f.service.move(profileId, postId, after, {
        interceptor: idem.interceptor(ticket, profileId),
      });
      return render(out, out.version, out.generation);
    },
  );
}

const versionOf = async (p: bigint) => (await f.service.store.readHead(p)).version;
const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'ok';
  } catch (e) {
    return e instanceof DomainError ? e.code : (e as Error).name;
  }
};

describe('Idempotency-Key', () => {
  it('replays the stored response without applying again or bumping the version', async () => {
    const idem = f.idempotency();
    const p = freshProfile(f);
    const [a, , c] = await seed(f, p, 3);
    const first = await keyedMove(idem, p, 'k-replay', a!, null);
    expect(first.replayed).toBe(false);
    const v = await versionOf(p);
    const again = await keyedMove(idem, p, 'k-replay', a!, null);
    expect(again).toEqual({ response: first.response, replayed: true });
    expect(await versionOf(p)).toBe(v);
    expect((await order(f, p))[0]).toBe(a);
    // A different request under the same key is refused, and changes nothing.
    expect(await codeOf(keyedMove(idem, p, 'k-replay', c!, null))).toBe('idempotency_mismatch');
    expect(await versionOf(p)).toBe(v);
  });

  it('answers 409 while the first request is still in flight', async () => {
    const idem = f.idempotency();
    const p = freshProfile(f);
    const fp = fingerprintRequest({ method: 'POST', route: '/x', body: '{}' });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const first = idem.run(
      { scope: p, key: 'k-slow', fingerprint: fp, gridProfileId: p },
      async () => {
        started();
        await gate;
        return { status: 200, body: { ok: true } };
      },
    );
    await running;
    const second = idem.run(
      { scope: p, key: 'k-slow', fingerprint: fp, gridProfileId: p },
      async () => {
        throw new Error('must not run');
      },
    );
    expect(await codeOf(second)).toBe('idempotency_in_flight');
    release();
    expect((await first).response.body).toEqual({ ok: true });
  });

  it('applies a move once when the process dies between the commit and the response', async () => {
    const idem = f.idempotency();
    const p = freshProfile(f);
    const [a, b] = await seed(f, p, 3);
    const v0 = await versionOf(p);
    f.hooks.afterCas = () => {
      throw new SimulatedCrash('after CAS, before response');
    };
    try {
      expect(await codeOf(keyedMove(idem, p, 'k-crash', a!, null))).toBe('SimulatedCrash');
    } finally {
      delete f.hooks.afterCas;
    }
    expect(await versionOf(p)).toBe(v0 + 1n); // it did commit
    // Another device moves b to the top meanwhile; the retry must not undo that.
    await f.service.move(p, b!, null);
    const retry = await keyedMove(idem, p, 'k-crash', a!, null);
    expect(retry.replayed).toBe(true);
    expect(retry.response.body).toEqual({ grid_version: (v0 + 1n).toString() });
    expect(await versionOf(p)).toBe(v0 + 2n);
    expect((await order(f, p)).slice(0, 2)).toEqual([b, a]);
    // And the record now says done: a third try is answered from it.
    expect((await f.idemStore.get(p, 'k-crash'))?.state).toBe('done');
  });

  it('a retry that cannot read the key\'s state says outcome unknown, never "not applied"', async () => {
    const p = freshProfile(f);
    const [a] = await seed(f, p, 2);
    const v0 = await versionOf(p);
    f.hooks.afterCas = () => {
      throw new SimulatedCrash('after CAS, before response');
    };
    try {
      expect(await codeOf(keyedMove(f.idempotency(), p, 'k-blind', a!, null))).toBe(
        'SimulatedCrash',
      );
    } finally {
      delete f.hooks.afterCas;
    }
    expect(await versionOf(p)).toBe(v0 + 1n); // it did commit
    // The retry's ring read fails as a quorum read does when replicas stop answering.
    const blind = new IdempotencyService(f.idemStore, {
      heads: async () => {
        throw new DomainError('unavailable', 'Cassandra is unavailable');
      },
      ttlS: f.config.IDEMPOTENCY_TTL_S,
      leaseMs: 30_000,
    });
    expect(await codeOf(keyedMove(blind, p, 'k-blind', a!, null))).toBe('write_outcome_unknown');
    // Once Cassandra answers, the same key replays the committed move; nothing is applied again.
    const retry = await keyedMove(f.idempotency(), p, 'k-blind', a!, null);
    expect(retry.replayed).toBe(true);
    expect(await versionOf(p)).toBe(v0 + 1n);
  });

  it('takes over a claim whose attempt died before committing, and applies it once', async () => {
    const idem = f.idempotency({ leaseMs: 1 });
    const p = freshProfile(f);
    const [a] = await seed(f, p, 2);
    const v0 = await versionOf(p);
    const fp = fingerprintRequest({ method: 'POST', route: '/v1/me/grid/moves', body: '{}' });
    const crashed = idem.run({ scope: p, key: 'k-pre', fingerprint: fp, gridProfileId: p }, () => {
      throw new SimulatedCrash('before the write');
    });
    expect(await codeOf(crashed)).toBe('SimulatedCrash');
    expect((await f.idemStore.get(p, 'k-pre'))?.state).toBe('in_flight');
    await new Promise((r) => setTimeout(r, 5)); // let the 1 ms lease run out
    const retry = await idem.run(
      { scope: p, key: 'k-pre', fingerprint: fp, gridProfileId: p, render },
      async (ticket) => {
        const out = await f.service.move(p, a!, null, {
          interceptor: idem.interceptor(ticket, p),
        });
        return render(out, out.version, out.generation);
      },
    );
    expect(retry.replayed).toBe(false);
    expect(await versionOf(p)).toBe(v0 + 1n);
  });

  it('refuses to guess when the committed key was pushed out of the ring', async () => {
    const idem = f.idempotency({ leaseMs: 1 }); // the crashed attempt's claim expires at once
    const p = freshProfile(f);
    const [a, b] = await seed(f, p, 2);
    f.hooks.afterCas = () => {
      throw new SimulatedCrash('after CAS');
    };
    try {
      await codeOf(keyedMove(idem, p, 'k-lost', a!, null));
    } finally {
      delete f.hooks.afterCas;
    }
    for (let i = 0; i < RING_SIZE; i++) {
      await keyedMove(idem, p, `k-other-${i}`, i % 2 ? a! : b!, null);
    }
    const v = await versionOf(p);
    const err = await keyedMove(idem, p, 'k-lost', a!, null).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('idempotency_in_flight');
    expect((err as DomainError).details).toMatchObject({ outcome: 'unknown' });
    expect(await versionOf(p)).toBe(v);
  });
});
