/**
 * Compressed answers (`BENCH_ONLY=compression` alone, and within the
 * serving scenarios of a full run): the 50-site deep page's bytes in each coding the gateway
 * makes, each decoded and compared with the identity answer, then response-cache hits of that
 * page under load with `Accept-Encoding: br` beside the same without (identity). A stored answer
 * is compressed once, so a br hit should cost what an identity hit costs, or less (fewer bytes).
 *
 * The hit runs are short (`COMPRESSION_SECONDS` each, after `SERVING_WARMUP_SECONDS` unmeasured)
 * so that the whole bench stays under 15 minutes. They need wrk (`Accept-Encoding` on every
 * request); answers are not searched for `errors` (a br body cannot be), the decoded check above
 * stands for them.
 */
import { request as httpRequest } from 'node:http';
import * as zlib from 'node:zlib';
import { isDeepStrictEqual } from 'node:util';
import { COMPRESSION_SECONDS, INDEX_REFRESH_S, SERVING_WARMUP_SECONDS } from '../config.js';
import type { LoadResult } from '../load/load.js';
import { runBodiesLoad, wrkVersion } from '../load/wrk.js';
import { withProcess } from '../processes/child.js';
import { startGateway } from '../processes/gateway.js';
import { clock } from '../processes/machine.js';
import { apiCalls, type BenchMock } from '../processes/mock.js';
import { gatewayRequest, randomKey } from '../workloads/serving.js';

/** The codings measured, identity first. */
export const ENCODINGS = ['identity', 'gzip', 'br', 'zstd'] as const;
export type Encoding = (typeof ENCODINGS)[number];

/** One coding of the deep page: its bytes as sent, or why the gateway did not send it so. */
export interface EncodedPage {
  bytes: number;
  /** The `Content-Encoding` the gateway answered with (`identity` for none). */
  sentAs: string;
  /** Whether it decodes to the identity answer's JSON. */
  sameJson: boolean;
}

/** A hit run under load, with the upstream calls it made (0: every answer a hit). */
export type HitRun = (LoadResult & { upstreamCalls: number }) | { notRun: string };

export interface CompressionResult {
  /** The 50-site deep page in each coding. */
  deepPage: Record<Encoding, EncodedPage>;
  /** Response-cache hits of the deep page: identity, and `Accept-Encoding: br`. */
  hits: { identity: HitRun; br: HitRun };
}

/** The deep page's bytes per coding, then its hits under load in identity and in br. */
export async function measureCompression(mock: BenchMock): Promise<CompressionResult> {
  const body = JSON.stringify(gatewayRequest('deep', randomKey('deep', mock)));
  return withProcess(startGateway(mock, { INDEX_REFRESH_S: String(INDEX_REFRESH_S) }), async (gw) => {
    const url = `${gw.url}/graphql`;
    step('the 50-site deep page in each coding');
    const identity = await fetchPage(url, body, 'identity');
    const plain = JSON.parse(identity.body.toString()) as unknown;
    if ((plain as { errors?: unknown }).errors !== undefined) throw new Error(`the deep page has errors: ${identity.body.toString().slice(0, 300)}`);
    const deepPage = {} as Record<Encoding, EncodedPage>;
    for (const encoding of ENCODINGS) {
      const answer = encoding === 'identity' ? identity : await fetchPage(url, body, encoding);
      deepPage[encoding] = { bytes: answer.body.length, sentAs: answer.coding, sameJson: isDeepStrictEqual(JSON.parse(decode(answer).toString()), plain) };
    }
    const hits = { identity: await hitRun(url, body, mock, undefined), br: await hitRun(url, body, mock, 'br') };
    return { deepPage, hits };
  });
}

// Private: the deep page under load, every answer a response-cache hit, in `acceptEncoding`.
async function hitRun(url: string, body: string, mock: BenchMock, acceptEncoding: string | undefined): Promise<HitRun> {
  if (wrkVersion() === null) return { notRun: 'needs wrk (Accept-Encoding on every request)' };
  step(`deep-page hits, ${acceptEncoding === undefined ? 'identity' : `Accept-Encoding: ${acceptEncoding}`}`);
  const options = { url, bodies: [body], order: 'random' as const, ...(acceptEncoding === undefined ? {} : { acceptEncoding }) };
  await runBodiesLoad({ ...options, seconds: SERVING_WARMUP_SECONDS });
  await mock.untilQuiet();
  await mock.reset();
  const run = await runBodiesLoad({ ...options, seconds: COMPRESSION_SECONDS });
  return { ...run, upstreamCalls: apiCalls(await mock.calls()) };
}

interface RawAnswer {
  body: Buffer;
  coding: string;
}

// Private: one POST with `Accept-Encoding: encoding`, the body as sent (node:http decodes nothing).
function fetchPage(url: string, body: string, encoding: Encoding): Promise<RawAnswer> {
  const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'accept-encoding': encoding };
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method: 'POST', headers }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk)).on('error', reject);
      incoming.on('end', () => {
        if (incoming.statusCode !== 200) return reject(new Error(`the deep page in ${encoding} answered ${incoming.statusCode}`));
        resolve({ body: Buffer.concat(chunks), coding: incoming.headers['content-encoding'] ?? 'identity' });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

// Private: the answer's bytes decoded from the coding it was sent in.
function decode(answer: RawAnswer): Buffer {
  switch (answer.coding) {
    case 'identity': return answer.body;
    case 'gzip': return zlib.gunzipSync(answer.body);
    case 'br': return zlib.brotliDecompressSync(answer.body);
    case 'zstd': return (zlib as unknown as { zstdDecompressSync(body: Buffer): Buffer }).zstdDecompressSync(answer.body);
    default: throw new Error(`the gateway sent a coding this bench cannot decode: ${answer.coding}`);
  }
}

// Private: progress on stderr, as all.ts does.
function step(what: string): void {
  console.error(`bench: ${clock()} compression, ${what}`);
}
