/**
 * The gateway's own timing of each request, from its log: one info line per GraphQL request
 * (`msg: 'graphql request'`) with the operation name and `durationMs`, from the moment yoga
 * took the request to the moment its response was ready (HTTP parsing and the socket excluded).
 * The gateway writes them to a file (`GatewayProcessOptions.logFile`); the bench reads the part
 * written during a run once that run is over, so reading costs the run nothing.
 */
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** Where the log file ends now, in bytes: the start (or end) of a run's part. */
export function logOffset(file: string): number {
  return statSync(file).size;
}

/** `durationMs` of every request line for `operation` in bytes `from` (inclusive) to `to` (exclusive) of `file`. */
export async function requestDurations(file: string, from: number, to: number, operation: string): Promise<number[]> {
  if (to <= from) return [];
  const lines = createInterface({ input: createReadStream(file, { start: from, end: to - 1 }), crlfDelay: Infinity });
  const durations: number[] = [];
  for await (const line of lines) {
    // Cheap test first: most lines of a run are this operation's, but not every line is a request.
    if (!line.includes('"graphql request"')) continue;
    const entry = parseLine(line);
    if (entry?.operation === operation && typeof entry.durationMs === 'number') durations.push(entry.durationMs);
  }
  return durations;
}

// Private: one JSON line, or undefined when it is cut (a line being written when `to` was read).
function parseLine(line: string): { operation?: unknown; durationMs?: unknown } | undefined {
  try {
    return JSON.parse(line) as { operation?: unknown; durationMs?: unknown };
  } catch {
    return undefined;
  }
}
