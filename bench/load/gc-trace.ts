/**
 * What V8's collector did in a gateway run, from `--trace-gc-nvp` lines in its stdout (the log
 * file beside its JSON lines): young-generation collections (scavenges) with their pauses and the
 * bytes that survived each, and full (mark-compact) collections. A scavenge that many bytes
 * survive is slow and pushes them to the old generation; `npm run profile` prints this beside
 * the CPU profile, since the CPU profile shows GC only as one line.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export interface GcSummary {
  scavenges: number;
  scavengeMeanMs: number;
  scavengeMaxMs: number;
  /** Mean bytes surviving one scavenge. */
  survivedMeanBytes: number;
  markCompacts: number;
  markCompactMaxMs: number;
}

/** Node options that make the gateway write the lines read here. */
export const GC_TRACE_ARGS = ['--trace-gc-nvp'];

/** The collections traced in `file`, or undefined when it has none. */
export async function gcSummary(file: string): Promise<GcSummary | undefined> {
  const young: Array<{ pause: number; survived: number }> = [];
  const full: number[] = [];
  for await (const line of createInterface({ input: createReadStream(file) })) {
    const at = line.indexOf('GC: {');
    if (line.startsWith('{') || at === -1) continue;
    const gc = JSON.parse(line.slice(at + 4)) as { gc: string; pause: number; new_space_survived?: number };
    if (gc.gc === 's') young.push({ pause: gc.pause, survived: gc.new_space_survived ?? 0 });
    else if (gc.gc === 'mc') full.push(gc.pause);
  }
  if (young.length + full.length === 0) return undefined;
  const mean = (values: number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
  return {
    scavenges: young.length,
    scavengeMeanMs: mean(young.map((one) => one.pause)),
    scavengeMaxMs: Math.max(0, ...young.map((one) => one.pause)),
    survivedMeanBytes: mean(young.map((one) => one.survived)),
    markCompacts: full.length,
    markCompactMaxMs: Math.max(0, ...full),
  };
}
