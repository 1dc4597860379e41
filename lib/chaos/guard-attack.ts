import 'server-only';
import { exploreGuardOnDatabase } from '../../db/explore';
import { readLabRow } from '../../db/lab-rows';
import { tallyChaos } from '../model/chaos/chaos-tally';
import { checkHistory } from '../model/checker/checker';
import type { WireEvent } from '../model/core/wire';
import { EXPLORE_BOUNDS } from '../model/explore/explore-labs';
import {
  type ExploreSetting,
  exploreSettings,
  type GuardConstants,
  lateWrites,
  settingsWords,
  staleWriters,
  triedWords,
} from '../model/guard/guard-probes';
import { type GuardVerdict, guardErrorVerdict, guardVerdict } from '../model/guard/guard-verdict';
import type { LabInstance } from '../model/lab/lab-instance';
import { runGuardStory } from './guard-story';
import { runChaos } from './run-chaos';

/*
 * The attack on a trainee's guard (issue 15 part 1, issue 22 part 4), with real worker processes:
 * first the pause story across the lab's digit boundary, its stale writers carrying the tokens and
 * values the statement itself names (lib/chaos/guard-story.ts, lib/model/guard/guard-probes.ts); then,
 * for a guard that held, seeded chaos aimed at the critical window (lib/chaos/run-chaos.ts), once
 * per seed: the same seeds for every trainee, so the room's guards face the same attack. The
 * history checker judges each run from its recorded events. Then, for a guard that still held, every
 * interleaving of GUARD_EXPLORE's small story, each write the trainee's statement on the lab's own row
 * in a transaction rolled back (db/explore.ts exploreGuardOnDatabase, issue 35): within those bounds, a
 * proof; the shortest interleaving that breaks it otherwise. The verdict says what was tried, and
 * never "safe" without its bounds.
 */

export const GUARD_CHAOS = { seeds: [15, 16], workers: 3, seconds: 4 } as const;
/** The exhaustive part's bounds: the Explore page's default, 2 holders × 3 writes. */
export const GUARD_EXPLORE = {
  holders: EXPLORE_BOUNDS.holders.default,
  writes: EXPLORE_BOUNDS.writes.default,
} as const;

export type GuardAttack = { verdict: GuardVerdict; events: WireEvent[] };

const NO_CONSTANTS: GuardConstants = { values: [], tokens: [] };
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export async function runGuardAttack(lab: LabInstance, constants: GuardConstants = NO_CONSTANTS): Promise<GuardAttack> {
  const story = await runGuardStory(lab, staleWriters(constants));
  const row = await readLabRow(lab);
  const checked = checkHistory(story, row ? { value: row.value, lastToken: row.lastToken } : undefined);
  const told = guardErrorVerdict(story) ?? guardVerdict(story, checked);
  if (!told.passed) return { verdict: told, events: story };
  const { seeds, seconds, workers } = GUARD_CHAOS;
  let chaosStale = 0;
  let last: WireEvent[] = story;
  for (const seed of seeds) {
    const chaos = await runChaos({ lab, seed, workers, seconds });
    const found = guardErrorVerdict(chaos.events) ?? guardVerdict(chaos.events, chaos.verdict);
    if (!found.passed) {
      return {
        verdict: { ...found, headline: `${found.headline} (in ${seconds} s of seeded chaos, seed ${seed})` },
        events: chaos.events,
      };
    }
    chaosStale += tallyChaos(chaos.events, 0).staleAttempts;
    last = chaos.events;
  }
  const settings = exploreSettings(constants, GUARD_EXPLORE.holders);
  const explored = await exploreGuardOnDatabase({ lab: lab.id, bounds: GUARD_EXPLORE, settings });
  const { counts, shortest } = explored.result;
  const space = `${GUARD_EXPLORE.holders} holders × ${GUARD_EXPLORE.writes} writes`;
  if (shortest) {
    const found = guardVerdict(shortest.events, checkHistory(shortest.events));
    const setting = explored.settings.at(-1);
    const tried =
      setting && explored.settings.length > 1 ? ` with ${settingsWords([settings[0] as ExploreSetting, setting])}` : '';
    return {
      verdict: {
        ...found,
        headline: `${found.headline} (exploring every interleaving of ${space}${tried}: ${counts.broken.toLocaleString('en-US')} of ${counts.interleavings.toLocaleString('en-US')} break, the shortest in ${plural(shortest.steps.length, 'step')})`,
      },
      events: shortest.events,
    };
  }
  const also = explored.settings.length > 1 ? `, again with ${settingsWords(explored.settings)}` : '';
  const sent = lateWrites(story);
  const storyStale = tallyChaos(story, 0).staleAttempts;
  return {
    verdict: {
      ...told,
      headline: `your guard held against the pause story and ${plural(storyStale + chaosStale, 'stale write')} over ${plural(seeds.length, 'seed')} of chaos (${seeds.join(', ')}; the story sent ${triedWords(sent, constants.values)}), and every interleaving of ${space} (${counts.interleavings.toLocaleString('en-US')}${also})`,
    },
    events: last,
  };
}
