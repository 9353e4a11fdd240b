/**
 * Compressed answers in the reports: the target (a br hit at least 0.9× an
 * identity hit, in req/s), the console's rows, and RESULTS.md's part of the serving section.
 */
import { round } from '../load/load.js';
import { ENCODINGS, type CompressionResult, type HitRun } from '../measure/compression.js';
import type { Target } from './target.js';

/** A br hit's req/s ÷ an identity hit's, at least: the compression was paid once, when stored. */
const BR_OVER_IDENTITY = 0.9;

/** The compressed-hit target, judged on this run; nothing when the run has no compression figures. */
export function compressionTargets(c: CompressionResult | undefined): Target[] {
  if (c === undefined) return [];
  const what = '50-site deep page, response-cache hits: req/s with Accept-Encoding: br ÷ identity';
  const target = `≥ ${BR_OVER_IDENTITY}`;
  const { identity, br } = c.hits;
  if ('notRun' in identity || 'notRun' in br) return [{ what, target, actual: `not run: ${'notRun' in br ? br.notRun : (identity as { notRun: string }).notRun}`, met: 'unmeasured' }];
  const value = round(br.requestsPerSecond / identity.requestsPerSecond, 2);
  const errors = identity.clientErrors + br.clientErrors;
  const calls = identity.upstreamCalls + br.upstreamCalls;
  const actual = `${value} (${br.requestsPerSecond} ÷ ${identity.requestsPerSecond} req/s; ${bytesLine(c)}${errors > 0 ? `; ${errors} client errors` : ''}${calls > 0 ? `; ${calls} upstream calls` : ''})`;
  const sameJson = ENCODINGS.every((encoding) => c.deepPage[encoding].sameJson);
  return [{ what, target, actual: sameJson ? actual : `${actual}; ⚠ a coding did not decode to the identity answer`, met: value >= BR_OVER_IDENTITY && errors === 0 && sameJson }];
}

/** One line per coding and per hit run, for the console. */
export function compressionRows(c: CompressionResult): Array<Record<string, string | number | boolean>> {
  const pages = ENCODINGS.map((encoding) => ({ page: 'deep', encoding, ...c.deepPage[encoding] }));
  const hits = (['identity', 'br'] as const).map((encoding) => ({ hits: 'deep', encoding, ...hitFigures(c.hits[encoding]) }));
  return [...pages, ...hits];
}

/** RESULTS.md's compression table: bytes per coding, then the two hit runs. */
export function compressionMarkdown(c: CompressionResult | undefined): string {
  if (c === undefined) return '**Compressed answers**: not measured in this run.';
  const identity = c.deepPage.identity.bytes;
  const pageRows = ENCODINGS.map((encoding) => {
    const page = c.deepPage[encoding];
    const sent = page.sentAs === encoding ? '' : ` (sent as ${page.sentAs})`;
    return `| ${encoding}${sent} | ${page.bytes} | ${round(identity / page.bytes, 1)}× | ${page.sameJson ? 'yes' : '**no**'} |`;
  });
  const hitRow = (name: string, run: HitRun): string => ('notRun' in run ? `| ${name} | not run: ${run.notRun} | | | | |`
    : `| ${name} | ${run.requestsPerSecond} | ${run.latencyP50Ms} | ${run.latencyP99Ms} | ${run.bytesPerResponse} | ${run.clientErrors} | ${run.upstreamCalls} | ${run.loadGeneratorCpuPercent} % |`);
  return [
    '**Compressed answers**: the 50-site deep page in each coding the gateway negotiates (brotli at quality 5), each decoded and compared with the identity answer; '
      + 'then response-cache hits of that page, with `Accept-Encoding: br` and without. A stored answer is compressed once, on its first ask in a coding.', '',
    '| Coding | bytes | smaller by | decodes to the identity JSON |', '| --- | --- | --- | --- |', ...pageRows, '',
    '| Deep-page hits | req/s | p50 ms | p99 ms | bytes/answer (headers included) | client errors | upstream calls | load generator CPU |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |', hitRow('identity', c.hits.identity), hitRow('Accept-Encoding: br', c.hits.br),
  ].join('\n');
}

// Private: bytes per coding in one line, for the target's figures.
function bytesLine(c: CompressionResult): string {
  return ENCODINGS.map((encoding) => `${encoding} ${c.deepPage[encoding].bytes} B`).join(', ');
}

// Private: a hit run's figures for the console.
function hitFigures(run: HitRun): Record<string, string | number> {
  if ('notRun' in run) return { notRun: run.notRun };
  return { rps: Math.round(run.requestsPerSecond), p50Ms: run.latencyP50Ms, p99Ms: run.latencyP99Ms, bytes: run.bytesPerResponse, errors: run.clientErrors, upstreamCalls: run.upstreamCalls, loadCpu: run.loadGeneratorCpuPercent };
}
