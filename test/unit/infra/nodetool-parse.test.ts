/** Parsers for nodetool tablestats and sstablemetadata output (shapes copied from Cassandra 5.0.8). */
import { describe, expect, it } from 'vitest';
import { parseSSTableMetadata, parseTableStats } from '../../../tools/infra/nodetool.js';

const TABLESTATS = `Total number of tables: 2
----------------
Keyspace : ks
\tRead Count: 54
\tWrite Count: 54
\t\tTable: other
\t\tSSTable count: 9
\t\tAverage tombstones per slice (last five minutes): 7.0
\t\tTable: grid_overrides
\t\tSSTable count: 3
\t\tSpace used (live): 5296
\t\tNumber of partitions (estimate): 12
\t\tLocal read count: 40
\t\tLocal write count: 41
\t\tAverage live cells per slice (last five minutes): 2.5
\t\tMaximum live cells per slice (last five minutes): 4
\t\tAverage tombstones per slice (last five minutes): NaN
\t\tMaximum tombstones per slice (last five minutes): 0
\t\tDropped Mutations: 0
`;

const METADATA = `SSTable: /data/ks/t-4d6c/oa-1-big
Partitioner: org.apache.cassandra.dht.Murmur3Partitioner
Estimated droppable tombstones: 0.6666666666666666
totalColumnsSet: 3
totalRows: 4
Estimated tombstone drop times: 
   Drop Time                        | Count  (%)  Histogram 
   1796064840 (11/30/2026 18:54:00) |     2 (66) OOOOOOOOOOOOOOOOOOOO
   1796064900 (11/30/2026 18:55:00) |     1 (33) OOOOOOOOOO
   Percentiles
   50th      1996099046 (04/02/2033 23:57:26)
Partition Size: 
   Size (bytes) | Count  (%)  Histogram 
   86 (86 B)    |     1 (100) OOOOOOOOOOOOOOOOOOOOOOOOOOOOOO
`;

describe('parseTableStats', () => {
  it('reads the section of the requested table only', () => {
    const s = parseTableStats(TABLESTATS, 'grid_overrides');
    expect(s.sstableCount).toBe(3);
    expect(s.partitionsEstimate).toBe(12);
    expect([s.localReadCount, s.localWriteCount]).toEqual([40, 41]);
    expect([s.averageLiveCellsPerSlice, s.maximumLiveCellsPerSlice]).toEqual([2.5, 4]);
    expect(s.raw['Space used (live)']).toBe('5296');
  });

  it('reads NaN (no reads yet) as zero tombstones', () => {
    const s = parseTableStats(TABLESTATS, 'grid_overrides');
    expect([s.averageTombstonesPerSlice, s.maximumTombstonesPerSlice]).toEqual([0, 0]);
    expect(parseTableStats(TABLESTATS, 'other').averageTombstonesPerSlice).toBe(7);
  });

  it('throws when the table is absent', () => {
    expect(() => parseTableStats(TABLESTATS, 'nope')).toThrow(/not found/);
  });
});

describe('parseSSTableMetadata', () => {
  it('sums the tombstone drop-time histogram and stops at the percentiles', () => {
    const info = parseSSTableMetadata('/data/ks/t-4d6c/oa-1-big-Data.db', METADATA);
    expect(info.tombstoneDropTimeCount).toBe(3);
    expect(info.estimatedDroppableTombstones).toBeCloseTo(0.6667, 3);
    expect(info.totalRows).toBe(4);
  });

  it('reports zero when the histogram is empty', () => {
    const none = METADATA.replace(/ {3}1796064[0-9]{3} .*\n/g, '');
    expect(parseSSTableMetadata('f', none).tombstoneDropTimeCount).toBe(0);
  });
});
