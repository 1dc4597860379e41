import fc from 'fast-check';
import { falseFailoverNarration } from '../lib/model/failover/failover-narration-oracle';
import { isWorkerLabId } from '../lib/model/lab/lab-kinds';
import { falseNarration } from '../lib/model/walkthrough/narration-oracle';
import { failoverHistory } from '../lib/testing/failover-histories';
import { storyHistory } from '../lib/testing/story-histories';
import { type BenchSizes, NARRATED_LABS } from './sizes';
import type { Figure } from './stats';

/*
 * The narration oracle over generated histories (`npm run bench -- narration`): for every lab's story,
 * `histories` generated runs (lib/testing/story-histories.ts: stalls past the lease, re-grants, B
 * refused and retrying, late answers), every step reached at every moment of each narrated and its
 * every claim held to the events (lib/model/walkthrough/narration-oracle.ts). The goal is issue 34's:
 * no false sentence; `npm test` runs 1,000 histories per lab (narration-properties.test.ts), this runs
 * 100,000 per lab at full size, and prints how many sentences it read. The failover lab's story too,
 * over its own generated histories (lib/testing/failover-histories.ts, failover-narration-oracle.ts).
 */

export async function benchNarration(size: BenchSizes['narration']): Promise<Figure[]> {
  const figures: Figure[] = [];
  let totalSentences = 0;
  let totalFalse = 0;
  const started = performance.now();
  const labs = size.labs ?? NARRATED_LABS;
  for (const lab of labs) {
    let sentences = 0;
    let wrong = 0;
    let example = '';
    const worker = isWorkerLabId(lab) ? lab : undefined;
    const generated = worker ? storyHistory(worker) : failoverHistory();
    const histories = fc.sample(generated, { numRuns: size.historiesPerLab, seed: size.seed });
    for (const events of histories) {
      const checked = worker ? falseNarration(worker, events) : falseFailoverNarration(events);
      sentences += checked.sentences;
      wrong += checked.wrong.length;
      if (!example && checked.wrong[0]) example = checked.wrong[0];
    }
    totalSentences += sentences;
    totalFalse += wrong;
    figures.push({
      name: `${lab}: false claims`,
      value: String(wrong),
      goal: '0',
      met: wrong === 0,
      note: `${histories.length.toLocaleString('en')} histories, ${sentences.toLocaleString('en')} sentences${example ? `; first: ${example}` : ''}`,
    });
    // Each lab's figures come out as they are done: a full run takes minutes.
    console.log(`narration: ${lab}: ${wrong} false claims in ${sentences.toLocaleString('en')} sentences`);
    await new Promise((resolve) => setImmediate(resolve));
  }
  const seconds = (performance.now() - started) / 1000;
  figures.push({
    name: 'all labs: sentences read',
    value: totalSentences.toLocaleString('en'),
    goal: 'no false one',
    met: totalFalse === 0,
    note: `${(totalSentences / seconds).toFixed(0)} sentences/s`,
  });
  return figures;
}
