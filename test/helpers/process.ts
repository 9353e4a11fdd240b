/**
 * Running the built gateway (dist/main.js) as its own process, as operators do; used by the
 * demo tests and the soak run.
 */
import type { ChildProcess } from 'node:child_process';

/**
 * Resolves with the GraphiQL address once the gateway logs it. Keeps reading the child's stdout
 * afterwards, so that a full pipe never blocks the gateway's logging.
 */
export function addressOf(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    let found = false;
    child.stdout!.on('data', (chunk) => {
      if (found) return;
      output += String(chunk);
      const match = /GraphiQL at (http:\/\/\S+\/graphql)/.exec(output);
      if (match) {
        found = true;
        resolve(match[1]!);
      }
    });
    child.once('exit', () => found || reject(new Error(`the gateway exited without listening:\n${output}`)));
  });
}
