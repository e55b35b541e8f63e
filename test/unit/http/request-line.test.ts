/**
 * The request log line (http/observe.ts `recordRequest`) is written without redaction
 * (obs/logger.ts `requestLogger`): it must come out exactly as the redacting logger would write
 * it, whichever of its optional fields are present, so no field of it is ever a redacted name.
 */
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/domain/errors.js';
import { recordRequest, type RequestRecord } from '../../../src/http/observe.js';
import { createLogger, requestLogger } from '../../../src/obs/logger.js';

function written(record: RequestRecord, redacting: boolean): Record<string, unknown> {
  const lines: string[] = [];
  const base = createLogger({ level: 'info', destination: { write: (l) => void lines.push(l) } });
  recordRequest(redacting ? base : requestLogger(base), record);
  expect(lines).toHaveLength(1);
  const { time: _time, latency_ms: _latency, ...line } = JSON.parse(lines[0]!);
  return line;
}

describe('the request log line', () => {
  const base = {
    requestId: 'req-1',
    method: 'GET',
    route: '/v1/profiles/:profile_id/grid',
    path: '/v1/profiles/42/grid',
    started: performance.now(),
  };
  const records: RequestRecord[] = [
    { ...base, status: 200 },
    { ...base, status: 304, profileId: 42n },
    { ...base, status: 409, err: new DomainError('conflict', 'stale') },
    {
      ...base,
      status: 503,
      profileId: 7n,
      err: new DomainError('unavailable', 'down', {}, { cause: new Error('token=abc') }),
    },
  ];
  it('is the same with and without redaction, for every combination of its fields', () => {
    for (const r of records) {
      const plain = written(r, false);
      expect(plain).toEqual(written(r, true));
      expect(plain).toMatchObject({ req_id: 'req-1', status: r.status });
    }
  });
});
