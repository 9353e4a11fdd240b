/** The fast first start, judged (the figures: ../measure/start.ts). */
import type { StartResult } from '../measure/start.js';
import type { Target } from './target.js';

/** The start targets: a second start answering within 3 s, a first within half of the 29 s a first start took before. */
export function startTargets(x: StartResult): Target[] {
  return [
    { what: 'Second `npm start` to its first answer (nothing to build)', target: '≤ 3 s', actual: `${x.secondS} s`, met: x.secondS <= 3 },
    { what: 'First `npm start` to its first answer (everything to build)', target: '≤ 14.5 s (half the issue\'s 29 s)', actual: `${x.firstS} s`, met: x.firstS <= 14.5 },
  ];
}
