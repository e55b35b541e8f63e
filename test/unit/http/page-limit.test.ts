import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GridQuery, pageLimit } from '../../../src/http/schemas.js';
import { ArchiveQuery, MediaQuery } from '../../../src/http/edit-schemas.js';

describe('page limits in query strings', () => {
  const limit = z.strictObject({ limit: pageLimit(100, 24) });

  it('take plain decimal 1..max, and the default when absent', () => {
    expect(limit.parse({}).limit).toBe(24);
    expect(limit.parse({ limit: '1' }).limit).toBe(1);
    expect(limit.parse({ limit: '100' }).limit).toBe(100);
  });

  it('refuse every other spelling', () => {
    for (const bad of ['0', '101', '0x10', ' 5', '5 ', '1e1', '+5', '-1', '05', '5.0', '', 'abc']) {
      expect(limit.safeParse({ limit: bad }).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('are the same rule on the grid, media and archive queries', () => {
    for (const schema of [GridQuery, MediaQuery, ArchiveQuery]) {
      expect(schema.safeParse({ limit: '0x10' }).success).toBe(false);
      expect(schema.safeParse({ limit: '10' }).success).toBe(true);
    }
  });
});
