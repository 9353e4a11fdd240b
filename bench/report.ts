/**
 * Writing a run's results: `results/latest.json`, `results/chart.svg` and `RESULTS.md`. Run on
 * its own, it re-renders the chart and RESULTS.md from `results/latest.json` (after a change to
 * the report's layout, no need to measure again):
 *
 *   npx tsx bench/report.ts
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RESULTS_DIR, ROOT } from './config.js';
import { chartSvg } from './report/chart.js';
import { resultsMarkdown } from './report/markdown.js';
import type { Results } from './report/results.js';

/** Write all three files for `results`. */
export function writeReports(results: Results): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, 'latest.json'), JSON.stringify(results, null, 2) + '\n');
  renderFrom(results);
}

// Private: the human-readable files, from results already written.
function renderFrom(results: Results): void {
  writeFileSync(join(RESULTS_DIR, 'chart.svg'), chartSvg(results) + '\n');
  writeFileSync(join(ROOT, 'bench/RESULTS.md'), resultsMarkdown(results));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  renderFrom(JSON.parse(readFileSync(join(RESULTS_DIR, 'latest.json'), 'utf8')) as Results);
  console.error('bench: re-rendered bench/results/chart.svg and bench/RESULTS.md from bench/results/latest.json');
}
