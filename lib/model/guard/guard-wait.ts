import type { GuardResult } from './guard-inputs';

/*
 * What a trainee's editor says while their guard waits (issue 24 item 3): the visible words follow each
 * answer (the estimate counts down every second); a screen reader hears only a change of place, so
 * "3rd in line", "2nd in line", "being attacked now", then the verdict, never every second's estimate.
 */

/** "Your guard is 3rd in line, about 20 s", as the server put its place in words. */
export const waitWords = (result: Pick<GuardResult, 'headline'>) => `Your guard is ${result.headline}`;

/** What the live region said last, and of which place of which attempt. */
export type Said = { key: string; words: string };

/**
 * What the live region says after `result`: the words said before while the place is the one they
 * were said of; new words when the place (or the attempt) changed; nothing once it is not waiting,
 * or before its place was read from the queue.
 */
export function waitAnnouncement(said: Said | undefined, result: GuardResult | undefined): Said | undefined {
  if (result?.outcome !== 'queued' || !result.queue) return undefined;
  const key = `${result.attemptId}:${result.queue.place}`;
  return key === said?.key ? said : { key, words: waitWords(result) };
}
