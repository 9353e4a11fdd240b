/**
 * `bench/results/chart.svg`: throughput (left, req/s, linear) and latency (right, ms, log
 * scale so that cold seconds and warm milliseconds fit one axis) side by side, one row per
 * server and query. Hand-written SVG: no charting dependency for one picture.
 */
import type { Results } from './results.js';
import { servingChartRows } from './serving.js';

type Server = 'bare' | 'gateway' | 'mesh' | 'client' | 'tailcall';

interface Row {
  label: string;
  server: Server;
  rps?: number;
  p50?: number;
  p99?: number;
  /** A single request's latency (cold rows). */
  single?: number;
}

const COLOURS: Record<Server, string> = { bare: '#9ca3af', gateway: '#2563eb', mesh: '#ea580c', client: '#7c3aed', tailcall: '#16a34a' };
const ROW = 26;
const TOP = 64;
const LABEL_W = 250;
const RPS_W = 330;
const GAP = 40;
const LATENCY_W = 400;
/** The latency axis: 1 ms to 100 s, five decades. */
const DECADES = 5;

/** The chart for `results`. */
export function chartSvg(results: Results): string {
  const rows = rowsOf(results);
  const height = TOP + rows.length * ROW + 56;
  const width = LABEL_W + RPS_W + GAP + LATENCY_W + 20;
  const maxRps = Math.max(...rows.map((row) => row.rps ?? 0));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="10" y="20" font-size="15" font-weight="bold">vending-graph benchmark, ${escape(results.date.slice(0, 10))}${results.shortRun ? ' (short run)' : ''}</text>`,
    `<text x="${LABEL_W}" y="${TOP - 14}" font-weight="bold">Requests/s (${results.settings.connections} connections)</text>`,
    `<text x="${LABEL_W + RPS_W + GAP}" y="${TOP - 14}" font-weight="bold">Latency, ms (log scale): p50 light, p99 dark</text>`,
    ...logTicks(rows.length),
    ...rows.flatMap((row, i) => rowSvg(row, TOP + i * ROW, maxRps)),
    legend(height - 20),
    '</svg>',
  ].join('\n');
}

// Private: the rows, warm load runs first, then the cold single requests.
function rowsOf(r: Results): Row[] {
  const { gateway: g, bare: b, mesh: m } = r.raw;
  const load = (label: string, server: Server, x: { requestsPerSecond: number; latencyP50Ms: number; latencyP99Ms: number }): Row =>
    ({ label, server, rps: x.requestsPerSecond, p50: x.latencyP50Ms, p99: x.latencyP99Ms });
  return [
    load('10-site deep · bare server', 'bare', b.deep),
    load('10-site deep · gateway', 'gateway', g.warmDeep),
    load('10-site deep · Mesh + cache', 'mesh', m.warmDeep),
    load('small · bare server', 'bare', b.small),
    load('small · gateway', 'gateway', g.warmSmall),
    load('small · Mesh + cache', 'mesh', m.warmSmall),
    load('mixed · gateway', 'gateway', g.mixed),
    load('mixed · Mesh + cache', 'mesh', m.mixed),
    // A latest.json from before the catalog-index scenario has no such rows.
    ...(r.raw.catalogIndex === undefined ? [] : [
      load('sitesNear (index) · gateway', 'gateway', r.raw.catalogIndex.sitesNear.load),
      load('availability (index) · gateway', 'gateway', r.raw.catalogIndex.availability.load),
    ]),
    // Likewise the serving scenarios; both gateways in the gateway's colour.
    ...(r.raw.serving === undefined ? [] : servingChartRows(r.raw.serving)
      .map((x) => load(x.label, x.peer === 'bare' ? 'bare' : x.peer === 'tailcall' ? 'tailcall' : 'gateway', x))),
    { label: 'cold 50-site deep · gateway', server: 'gateway', single: g.cold.latencyMs },
    { label: 'cold 50-site deep · Mesh', server: 'mesh', single: m.cold.latencyMs },
    ...r.raw.restClients.map((c): Row => ({ label: `cold 50 sites · REST client, ${c.strategy}`, server: 'client', single: c.latencyMs })),
  ];
}

// Private: one row: its label, its throughput bar, its latency bars, with values.
function rowSvg(row: Row, y: number, maxRps: number): string[] {
  const parts = [`<text x="${LABEL_W - 8}" y="${y + 16}" text-anchor="end">${escape(row.label)}</text>`];
  const colour = COLOURS[row.server];
  if (row.rps !== undefined) {
    const w = Math.max(1, (row.rps / maxRps) * (RPS_W - 70));
    parts.push(bar(LABEL_W, y + 4, w, 16, colour, 1), value(LABEL_W + w + 4, y + 16, `${Math.round(row.rps)}`));
  } else {
    parts.push(`<text x="${LABEL_W}" y="${y + 16}" fill="#9ca3af">one request, cold</text>`);
  }
  const x0 = LABEL_W + RPS_W + GAP;
  if (row.p99 !== undefined && row.p50 !== undefined) {
    parts.push(bar(x0, y + 4, logX(row.p99), 16, colour, 1), bar(x0, y + 4, logX(row.p50), 16, '#ffffff', 0.45));
    parts.push(value(x0 + logX(row.p99) + 4, y + 16, `${row.p50} / ${row.p99}`));
  } else if (row.single !== undefined) {
    parts.push(bar(x0, y + 4, logX(row.single), 16, colour, 1), value(x0 + logX(row.single) + 4, y + 16, `${row.single}`));
  }
  return parts;
}

// Private: ms on the log axis (1 ms at the panel's left edge), in px.
function logX(ms: number): number {
  return Math.max(1, (Math.log10(Math.max(ms, 1)) / DECADES) * (LATENCY_W - 100));
}

// Private: vertical grid lines at 1, 10, 100 ms, 1 s, 10 s.
function logTicks(rowCount: number): string[] {
  const x0 = LABEL_W + RPS_W + GAP;
  const bottom = TOP + rowCount * ROW;
  return [1, 10, 100, 1000, 10_000, 100_000].flatMap((ms) => {
    const x = x0 + logX(ms);
    const label = ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
    return [`<line x1="${x}" y1="${TOP - 4}" x2="${x}" y2="${bottom}" stroke="#e5e7eb"/>`,
      `<text x="${x}" y="${bottom + 14}" text-anchor="middle" fill="#6b7280">${label}</text>`];
  });
}

// Private: the colour key.
function legend(y: number): string {
  const names: Array<[Server, string]> = [['bare', 'bare node:http (ceiling)'], ['gateway', 'vending-graph'], ['mesh', 'GraphQL Mesh + response cache'], ['tailcall', 'Tailcall + @cache'], ['client', 'client without a gateway']];
  let x = 10;
  return names.map(([server, name]) => {
    const item = `${bar(x, y - 10, 12, 12, COLOURS[server], 1)}<text x="${x + 18}" y="${y}">${escape(name)}</text>`;
    x += 40 + name.length * 7; // about 7 px per character at 12 px
    return item;
  }).join('');
}

const bar = (x: number, y: number, w: number, h: number, fill: string, opacity: number): string =>
  `<rect x="${x.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${h}" fill="${fill}" fill-opacity="${opacity}"/>`;
const value = (x: number, y: number, text: string): string => `<text x="${x.toFixed(1)}" y="${y}" fill="#374151">${escape(text)}</text>`;
const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
