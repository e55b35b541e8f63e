import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../tools/loadtest/region-load.js';

const problem = (code: string) => JSON.stringify({ type: `https://regrid.dev/problems/${code}`, code }); // prettier-ignore

describe('what a region answer says about a move', () => {
  it('2xx: acknowledged at the version it names', () => {
    expect(outcomeOf(200, '{"grid_version":"42","move_id":"x"}')).toEqual({ kind: 'acked', version: 42n }); // prettier-ignore
  });

  it('nothing applied: 4xx, 503 unavailable (no quorum, home region unreachable), 503 contention', () => {
    expect(outcomeOf(421, problem('wrong_region'))).toEqual({ kind: 'rejected', code: 'http_421_wrong_region' }); // prettier-ignore
    expect(outcomeOf(503, problem('unavailable')).kind).toBe('rejected');
    expect(outcomeOf(503, problem('contention')).kind).toBe('rejected');
  });

  it('may have been applied: 503 write_outcome_unknown, 408, other 5xx', () => {
    expect(outcomeOf(503, problem('write_outcome_unknown'))).toEqual({ kind: 'uncertain', code: 'http_503_write_outcome_unknown' }); // prettier-ignore
    expect(outcomeOf(408, '').kind).toBe('uncertain');
    expect(outcomeOf(500, 'oops')).toEqual({ kind: 'uncertain', code: 'http_500' });
  });
});
