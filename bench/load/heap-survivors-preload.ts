/**
 * Preloaded (`--import`) into a profiled gateway by heap-survivors.ts: V8's sampling heap
 * profiler, keeping only the objects that outlived a young-generation collection, written to
 * `HEAP_SURVIVORS_FILE` on SIGUSR2. Node runs it as it is (its types stripped).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const session = new Session();
session.connect();
session.post('HeapProfiler.enable');
session.post('HeapProfiler.startSampling', { samplingInterval: 8192, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
process.on('SIGUSR2', () => {
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (error === null && process.env.HEAP_SURVIVORS_FILE) writeFileSync(process.env.HEAP_SURVIVORS_FILE, JSON.stringify(result.profile));
  });
});
