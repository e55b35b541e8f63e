/**
 * The run's chart as a hand-written SVG (no dependencies): stacked panels sharing the x axis
 * (moves done so far), one line per design — first-page read latency, tombstones scanned by that
 * read, then the same two for a read of the whole grid. Pure: data in, markup out.
 */
export interface ChartPoint {
  readonly moves: number;
  /** First page of the busiest grid: median latency, tombstones met (traced). */
  readonly readMs: number;
  readonly tombstones: number;
  /** The whole busiest grid: latency, and tombstones met by a traced read of its partitions. */
  readonly fullReadMs: number;
  readonly fullTombstones: number;
  /** Live rows that traced read returned (duplicates included); not plotted. */
  readonly fullLiveRows?: number;
}

export interface ChartSeries {
  readonly name: string;
  readonly points: readonly ChartPoint[];
}

const W = 760;
const PANEL_H = 150;
const M = { left: 70, right: 150, top: 40, gap: 50, bottom: 50 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd'];

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const NICE = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];

/** A round axis maximum (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten) >= `max`. */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of NICE) if (m * p >= max * (1 - 1e-12)) return +(m * p).toPrecision(12);
  return 10 * p;
}

const fmt = (x: number) => (x >= 1000 ? `${+(x / 1000).toFixed(1)}k` : `${+x.toFixed(2)}`);

interface Panel {
  readonly title: string;
  readonly y0: number; // top pixel of the plot area
  readonly value: (p: ChartPoint) => number;
}

export function renderChart(series: readonly ChartSeries[], title: string): string {
  const plotW = W - M.left - M.right;
  const PANELS: Array<Omit<Panel, 'y0'>> = [
    { title: 'first-page read latency (ms)', value: (p) => p.readMs },
    { title: 'tombstones scanned per first-page read', value: (p) => p.tombstones },
    { title: 'whole-grid read latency (ms)', value: (p) => p.fullReadMs },
    { title: 'tombstones scanned per whole-grid read', value: (p) => p.fullTombstones },
  ];
  const H = M.top + PANEL_H * PANELS.length + M.gap * (PANELS.length - 1) + M.bottom;
  const all = series.flatMap((s) => s.points);
  const xMax = niceMax(Math.max(0, ...all.map((p) => p.moves)));
  const x = (v: number) => M.left + (v / xMax) * plotW;
  const panels: Panel[] = PANELS.map((p, i) => ({ ...p, y0: M.top + i * (PANEL_H + M.gap) }));

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${esc(title)}</text>`,
  ];
  for (const panel of panels) {
    const yMax = niceMax(Math.max(0, ...all.map(panel.value)));
    const y = (v: number) => panel.y0 + PANEL_H - (v / yMax) * PANEL_H;
    out.push(
      `<text x="${M.left}" y="${panel.y0 - 8}" font-weight="bold">${esc(panel.title)}</text>`,
    );
    for (let i = 0; i <= 4; i++) {
      const v = (yMax * i) / 4;
      out.push(
        `<line x1="${M.left}" x2="${M.left + plotW}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`,
        `<text x="${M.left - 6}" y="${y(v) + 4}" text-anchor="end">${fmt(v)}</text>`,
      );
    }
    for (let i = 0; i <= 5; i++) {
      const v = (xMax * i) / 5;
      out.push(
        `<text x="${x(v)}" y="${panel.y0 + PANEL_H + 16}" text-anchor="middle">${fmt(v)}</text>`,
      );
    }
    out.push(
      `<rect x="${M.left}" y="${panel.y0}" width="${plotW}" height="${PANEL_H}" fill="none" stroke="#333"/>`,
    );
    series.forEach((s, i) => {
      const color = COLORS[i % COLORS.length];
      const pts = s.points.map((p) => `${x(p.moves).toFixed(1)},${y(panel.value(p)).toFixed(1)}`);
      if (pts.length > 0) {
        out.push(
          `<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.join(' ')}"/>`,
        );
        for (const pt of pts) {
          const [cx, cy] = pt.split(',');
          out.push(`<circle cx="${cx}" cy="${cy}" r="2.5" fill="${color}"/>`);
        }
      }
    });
  }
  out.push(`<text x="${M.left + plotW / 2}" y="${H - 12}" text-anchor="middle">moves done</text>`);
  series.forEach((s, i) => {
    const ly = M.top + 10 + i * 20;
    const color = COLORS[i % COLORS.length];
    out.push(
      `<line x1="${W - M.right + 15}" x2="${W - M.right + 40}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="3"/>`,
      `<text x="${W - M.right + 46}" y="${ly + 4}">${esc(s.name)}</text>`,
    );
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
