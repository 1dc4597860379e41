import { exploreOnDatabase } from '../db/explore';
import { PAUSE_FENCED } from '../lib/labs/traits';
import { exploreLabOf } from '../lib/model/explore/explore-labs';
import type { BenchSizes } from './sizes';
import type { Figure } from './stats';

/*
 * The explorer (issue 35, docs/explore.md): every interleaving of the fenced lab's story at each size,
 * each write run by fl_fenced_write under a savepoint, rolled back. The time to explore the whole space
 * with its state counts beside it (a faster run that explores less is seen), and the writes run a second
 * (on the sessions side by side the explorer uses: docs/explore.md, "Sessions side by side, one search").
 */

/** The goals: seconds for the whole space at a size, and the writes a second on the database. */
const GOAL_SECONDS: Record<string, number> = { '2×3': 5, '3×2': 20 };
const GOAL_WRITES_PER_SECOND = 3_000;

export async function benchExplore(size: BenchSizes['explore']): Promise<Figure[]> {
  const lab = exploreLabOf(PAUSE_FENCED);
  if ('refusal' in lab) throw new Error(lab.refusal);
  const figures: Figure[] = [];
  let writes = 0;
  let seconds = 0;
  for (const { holders, writes: perHolder } of size.cases) {
    const explored = await exploreOnDatabase({ lab, bounds: { holders, writes: perHolder } });
    const { counts } = explored.result;
    writes += counts.storageSteps;
    seconds += explored.seconds;
    const key = `${holders}×${perHolder}`;
    const goal = GOAL_SECONDS[key];
    figures.push({
      name: `fenced ${holders} holders × ${perHolder} writes, whole space`,
      value: `${explored.seconds.toFixed(2)} s`,
      goal: goal === undefined ? '-' : `< ${goal} s`,
      met: goal === undefined ? undefined : explored.seconds < goal && counts.broken === 0,
      note: `${explored.sessions} sessions, ${counts.states.toLocaleString('en-US')} states, ${counts.interleavings.toLocaleString('en-US')} interleavings, ${counts.broken} broken, ${counts.storageSteps.toLocaleString('en-US')} writes`,
    });
  }
  const perSecond = seconds > 0 ? writes / seconds : 0;
  figures.push({
    name: 'writes run on the database a second',
    value: `${Math.round(perSecond).toLocaleString('en-US')}/s`,
    goal: `≥ ${GOAL_WRITES_PER_SECOND.toLocaleString('en-US')}/s`,
    met: perSecond >= GOAL_WRITES_PER_SECOND,
    note: `${writes.toLocaleString('en-US')} writes in ${seconds.toFixed(2)} s`,
  });
  return figures;
}
