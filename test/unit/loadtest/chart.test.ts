import { describe, expect, it } from 'vitest';
import { niceMax, renderChart } from '../../../tools/loadtest/chart.js';

describe('SVG chart', () => {
  it('rounds axis maxima up to a round multiple of a power of ten', () => {
    expect([0, 0.3, 1, 7, 12, 180, 2001, 30000, 30001].map(niceMax)).toEqual([
      1, 0.3, 1, 8, 12, 200, 2500, 30000, 40000,
    ]);
  });

  it('draws one line per design in each of the two panels, with a legend', () => {
    const svg = renderChart(
      [
        {
          name: 'regrid',
          points: [
            { moves: 0, readMs: 1, tombstones: 0, fullReadMs: 2, fullTombstones: 0 },
            { moves: 100, readMs: 1.2, tombstones: 0, fullReadMs: 2, fullTombstones: 0 },
          ],
        },
        {
          name: 'naive <delete+insert>',
          points: [
            { moves: 0, readMs: 1, tombstones: 0, fullReadMs: 2, fullTombstones: 0 },
            { moves: 100, readMs: 3, tombstones: 90, fullReadMs: 9, fullTombstones: 300 },
          ],
        },
      ],
      'regrid vs naive',
    );
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/<polyline/g)).toHaveLength(8);
    expect(svg).toContain('tombstones scanned per whole-grid read');
    expect(svg).toContain('naive &lt;delete+insert&gt;');
    expect(svg).toContain('tombstones scanned per first-page read');
    expect(svg).not.toContain('NaN');
  });

  it('renders empty series without NaN', () => {
    const svg = renderChart([{ name: 'regrid', points: [] }], 't');
    expect(svg).not.toContain('NaN');
    expect(svg).not.toContain('<polyline');
  });
});
