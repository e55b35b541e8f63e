import { describe, expect, it } from 'vitest';
import { tallyTraceEvents } from '../../../tools/loadtest/cql-trace.js';

describe('tallyTraceEvents', () => {
  it('sums every "Read N live rows and M tombstone cells" event and ignores the rest', () => {
    expect(
      tallyTraceEvents([
        'Parsing SELECT * FROM t',
        'Read 12 live rows and 0 tombstone cells',
        'Merged data from memtables and 2 sstables',
        'Read 3 live rows and 1500 tombstone cells (see tombstone_warn_threshold)',
        'Read 0 live rows and 2 tombstone cells',
      ]),
    ).toEqual({ liveRows: 15, tombstoneCells: 1502, reads: 3 });
    expect(tallyTraceEvents([])).toEqual({ liveRows: 0, tombstoneCells: 0, reads: 0 });
  });
});
