/**
 * One clock, given by hand: below the composition root (src/app/, src/main.ts) a component reads
 * the `Clock` it was given, never `systemClock` (base/clock.ts), so that a test's clock reaches
 * every time the gateway reads. Lint enforces it (eslint.config.js); these tests show the rule
 * bites where it should and nowhere else.
 */
import { ESLint } from 'eslint';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root });

// Private: the rule messages lint gives `text` as if it were the file at `path`.
async function messagesOf(text: string, path: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: join(root, path) });
  return result!.messages.filter((message) => message.ruleId === 'no-restricted-syntax').map((message) => message.message);
}

const IMPORTED = "import { systemClock } from '../base/clock.js';\nexport const at = (): number => systemClock.wall();\n";
const THROUGH_THE_MODULE = "import * as clocks from '../base/clock.js';\nexport const at = (): number => clocks.systemClock.monotonic();\n";
const GIVEN = "import type { Clock } from '../base/clock.js';\nexport const at = (clock: Clock): number => clock.wall();\n";

describe('the clock a component reads', () => {
  it('fails lint when a component below the composition root imports systemClock or reads it off the module', async () => {
    expect(await messagesOf(IMPORTED, 'src/data/probe.ts')).toEqual([expect.stringContaining('Take a `clock: Clock`')]);
    expect(await messagesOf(THROUGH_THE_MODULE, 'src/upstream/probe.ts')).toEqual([expect.stringContaining('Take a `clock: Clock`')]);
  }, 30_000);

  it('lets the composition root hand out systemClock and a component read the clock it is given', async () => {
    expect(await messagesOf(IMPORTED, 'src/app/probe.ts')).toEqual([]);
    expect(await messagesOf(GIVEN, 'src/cache/probe.ts')).toEqual([]);
  }, 30_000);

  it('still fails lint on a direct read of the time in the composition root', async () => {
    expect(await messagesOf('export const at = (): number => Date.now();\n', 'src/app/probe.ts')).toEqual(['Read the time through base/clock.ts.']);
  }, 30_000);
});
