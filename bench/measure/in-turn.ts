/**
 * Every ratio to the bare server comes from here: a warm gateway and a bare server of the same
 * scenario, loaded in turn in short slices (`../scenarios/interleaved.ts` says why), the bare
 * server started for the slices alone and stopped after them.
 */
import { startBare, type BareAnswer } from '../peers/bare.js';
import { withProcess } from '../processes/child.js';
import type { BenchMock } from '../processes/mock.js';
import { interleavedRuns, type Fill, type InterleavedResult, type Reads } from '../scenarios/interleaved.js';

/** The bare side of a comparison: its path's name, the answer it replays for every key, and whose answers the slices read. */
export interface BareSide extends BareAnswer {
  name: string;
  reads: Reads;
}

/**
 * The gateway at `url` (warm) and a bare server answering `bare`, in turn, with the same `bodies`;
 * `fill` makes every answer the gateway holds fresh before the first slice.
 */
export function inTurnWithBare(url: string, bare: BareSide, bodies: readonly string[], mock: BenchMock, fill: Fill): Promise<InterleavedResult> {
  const { name, answer, keys, reads } = bare;
  return withProcess(startBare({ [name]: { answer, keys } }), (server) => interleavedRuns(url, `${server.url}/${name}`, bodies, mock, fill, reads));
}
