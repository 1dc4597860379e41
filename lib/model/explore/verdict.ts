import type { ExploreResult } from './search';
import { eventWords } from './story-words';

/*
 * The explorer's verdict in one sentence, never "safe" without what was explored: the states, the
 * interleavings, the bounds (holders × writes, and the depth when a path was cut by it) and the time.
 */

const count = (n: number): string => n.toLocaleString('en-US');
const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

export function boundsWords(result: ExploreResult): string {
  const { holders, writes, depth, renew } = result.bounds;
  const cut = result.counts.cut > 0 && depth !== undefined ? `, cut at ${depth} steps` : '';
  const careful = renew ? ', each renewing its lease before every later write and giving it back after its last' : '';
  return `${plural(holders, 'holder')} × ${plural(writes, 'write')}${careful}${cut}`;
}

export function verdictSentence(title: string, result: ExploreResult, seconds: number): string {
  const { states, interleavings, broken } = result.counts;
  const time = `${seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
  if (broken === 0 || !result.shortest) {
    return `${title}: ${plural(states, 'state')}, ${plural(interleavings, 'interleaving')} of ${boundsWords(result)}, explored in ${time}: no interleaving loses a write.`;
  }
  const steps = result.shortest.steps.length;
  return `${title}: breaks in ${count(broken)} of ${plural(interleavings, 'interleaving')} of ${boundsWords(result)} (${plural(states, 'state')}, ${time}); the shortest has ${plural(steps, 'step')}: ${counterexampleWords(result).join('; ')}.`;
}

/** The shortest counterexample, a step a line (the up-front grants first, when there are any). */
export function counterexampleWords(result: ExploreResult): string[] {
  return result.shortest?.events.map(eventWords) ?? [];
}
