import type { SizeResult } from './scale-size.js';

/** A row of the table; with a limit, issue 17's goal at the sizes it names ("peak ≤ 2× steady" at every size). */
interface Row {
  label: string;
  value: (r: SizeResult) => number;
  unit: string;
  /** The limit at a size, undefined where the issue sets none. */
  limit?: (pages: number, r: SizeResult) => number | undefined;
}

const at = (limits: Record<number, number>) => (pages: number) => limits[pages];

const ROWS: Row[] = [
  { label: 'generate vault', value: (r) => r.gen_s, unit: 's' },
  { label: 'spawn to listening', value: (r) => r.listen_ms, unit: 'ms' },
  { label: 'steady RSS', value: (r) => r.steady_mb, unit: 'MB', limit: at({ 10_000: 150, 100_000: 800 }) },
  { label: 'first build', value: (r) => r.build_s, unit: 's', limit: at({ 10_000: 5, 100_000: 60 }) },
  { label: 'peak during build (server)', value: (r) => r.peak_build_mb, unit: 'MB' },
  {
    label: "peak during build (+ builder's own)",
    value: (r) => r.peak_build_tree_mb,
    unit: 'MB',
    limit: (p, r) => Math.min(2 * r.steady_mb, p === 100_000 ? 1536 : Infinity),
  },
  { label: '  the same, RSS summed', value: (r) => r.peak_build_rss_sum_mb, unit: 'MB' },
  { label: 'RSS before the save', value: (r) => r.before_save_mb, unit: 'MB' },
  { label: 'peak during save', value: (r) => r.save_peak_mb, unit: 'MB', limit: (_p, r) => 2 * r.steady_mb },
  { label: 'peak during save / before', value: (r) => Math.round((100 * r.save_peak_mb) / r.before_save_mb) / 100, unit: '×' },
  { label: 'warm first search', value: (r) => r.warm_first_search_ms, unit: 'ms', limit: at({ 10_000: 300, 100_000: 1000 }) },
  { label: 'search p50 (HTTP)', value: (r) => r.search_ms.p50, unit: 'ms', limit: at({ 100_000: 2 }) },
  { label: 'search p99 (HTTP)', value: (r) => r.search_ms.p99, unit: 'ms', limit: at({ 100_000: 10 }) },
  { label: 'HTTP floor p50 (whoami)', value: (r) => r.http_floor_p50_ms, unit: 'ms' },
  { label: 'search p50 (engine CPU, in-process)', value: (r) => r.engine_search_ms.p50, unit: 'ms' },
  { label: 'search p99 (engine CPU, in-process)', value: (r) => r.engine_search_ms.p99, unit: 'ms' },
  { label: 'warm steady RSS', value: (r) => r.warm_steady_mb, unit: 'MB' },
  { label: 'write p50 (sequential)', value: (r) => r.write_ms.p50, unit: 'ms' },
  { label: 'save landed after writes', value: (r) => r.save_seen_after_ms, unit: 'ms' },
  { label: 'index on disk', value: (r) => r.index_disk_mb, unit: 'MB' },
  { label: 'vault memory (health)', value: (r) => Math.round(vaultBytes(r.health_memory) / 1e6), unit: 'MB' },
];

/** The server's own estimate of the vault's memory, where `health` reports one (NaN: it does not). */
function vaultBytes(memory: unknown): number {
  const bytes = (memory as { vault_bytes?: unknown } | null)?.vault_bytes;
  return typeof bytes === 'number' ? bytes : NaN;
}

/** Columns in the curve, in order: the CSV header and its values. */
const CURVE: [string, (r: SizeResult) => number][] = [
  ['pages', (r) => r.pages],
  ['gen_s', (r) => r.gen_s],
  ['build_s', (r) => r.build_s],
  ['peak_build_mb', (r) => r.peak_build_mb],
  ['peak_build_tree_mb', (r) => r.peak_build_tree_mb],
  ['steady_mb', (r) => r.steady_mb],
  ['before_save_mb', (r) => r.before_save_mb],
  ['save_peak_mb', (r) => r.save_peak_mb],
  ['warm_first_search_ms', (r) => r.warm_first_search_ms],
  ['warm_steady_mb', (r) => r.warm_steady_mb],
  ['search_p50_ms', (r) => r.search_ms.p50],
  ['search_p99_ms', (r) => r.search_ms.p99],
  ['http_floor_p50_ms', (r) => r.http_floor_p50_ms],
  ['engine_search_p50_ms', (r) => r.engine_search_ms.p50],
  ['engine_search_p99_ms', (r) => r.engine_search_ms.p99],
  ['write_p50_ms', (r) => r.write_ms.p50],
  ['index_disk_mb', (r) => r.index_disk_mb],
];

const size = (pages: number) => (pages >= 1000 && pages % 1000 === 0 ? `${pages / 1000}k` : String(pages));

function cell(row: Row, r: SizeResult): string {
  const value = row.value(r);
  if (!Number.isFinite(value)) return '—';
  const limit = row.limit?.(r.pages, r);
  const shown = `${value} ${row.unit}`;
  if (limit === undefined || !Number.isFinite(limit)) return shown;
  return `${shown} ${value <= limit ? 'PASS' : 'FAIL'} (≤ ${Math.round(limit * 10) / 10})`;
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  return rows.map((row) => row.map((text, c) => text.padEnd(widths[c])).join('  ')).join('\n');
}

/** One bar per size, scaled to the largest value, for a quick look at how a figure grows. */
function bars(label: string, unit: string, results: SizeResult[], value: (r: SizeResult) => number): string {
  const max = Math.max(...results.map(value), 1e-9);
  const lines = results.map(
    (r) => `  ${size(r.pages).padStart(5)} ${'#'.repeat(Math.max(1, Math.round((40 * value(r)) / max))).padEnd(40)} ${value(r)} ${unit}`,
  );
  return [`${label}:`, ...lines].join('\n');
}

/** The table with PASS/FAIL next to each goal, then the curve as bars and as CSV. */
export function scaleReport(results: SizeResult[]): string {
  const header = ['', ...results.map((r) => size(r.pages))];
  const rows = ROWS.map((row) => [row.label, ...results.map((r) => cell(row, r))]);
  return [
    table([header, ...rows]),
    '',
    bars('steady RSS', 'MB', results, (r) => r.steady_mb),
    bars('first build', 's', results, (r) => r.build_s),
    bars('warm first search', 'ms', results, (r) => r.warm_first_search_ms),
    '',
    'curve (CSV):',
    CURVE.map(([name]) => name).join(','),
    ...results.map((r) => CURVE.map(([, value]) => value(r)).join(',')),
  ].join('\n');
}
