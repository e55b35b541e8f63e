/**
 * A write on one grid whose Idempotency-Key rides in that grid's compare-and-set (idempotent.ts):
 * the caller's own grid unless another is named. `render` builds the answer from the outcome,
 * for the live request and for a replay re-rendered from the grid's request ring alike.
 */
import type { Context } from 'hono';
import type {
  IdempotencyService,
  ResponseRenderer,
  StoredResponse,
} from '../../service/idempotency/idempotency.js';
import type { WriteOptions } from '../../service/write-line/write-line.js';
import type { AppEnv } from '../env.js';
import { idempotentWrite } from '../idempotent.js';

export function gridWrite<R>(
  c: Context<AppEnv>,
  idem: IdempotencyService | undefined,
  render: (result: R, version: bigint, generation: bigint) => StoredResponse,
  write: (opts: WriteOptions) => Promise<{ result?: R; version: bigint; generation: bigint }>,
  grid: bigint = c.get('profileId'),
): Promise<Response> {
  const spec = {
    scope: c.get('profileId'),
    gridProfileId: grid,
    render: render as ResponseRenderer,
  };
  return idempotentWrite(c, idem, spec, async (opts) => {
    const out = await write(opts());
    return render(out.result as R, out.version, out.generation);
  });
}
