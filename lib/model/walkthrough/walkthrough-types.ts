import type { WireEvent } from '../core/wire';
import type { StoryAction, StoryStep } from '../story/story-engine';
import type { RowNow } from './narration';

/*
 * A walkthrough's types: its steps and the facts they read from the events (walkthrough.ts picks a
 * lab's story, each story's module writes its steps). In a module of their own so that the stories
 * read them without importing the module that imports the stories.
 */

/** What a walkthrough step does to the real lab: an action of the one story engine (story-engine.ts). */
export type StepAction = StoryAction<Facts>;

export type Facts = {
  /** The token of A's lease that runs out in the story (the pause story: the one A held when it froze). */
  tokenA?: number;
  /** The token of B's grant before its write. */
  tokenB?: number;
  /** The pause story: A's grant whose lease runs out, the token A believed it held when it froze, B's grant, A's lease lost after its late write. */
  heldA?: WireEvent;
  beliefTokenA?: number;
  grantB?: WireEvent;
  lostA?: WireEvent;
  /** A's and B's starts, with the settings they recorded (narration.ts recordedSettings). */
  startA?: WireEvent;
  firstWriteA?: WireEvent;
  pauseA?: WireEvent;
  expiryA?: WireEvent;
  writeB?: WireEvent;
  wokeA?: WireEvent;
  lateWriteA?: WireEvent;
  /** A's grant before its first write (the drifting clock: A's first grant); B's start; what A read on its clock when it sent its late write. */
  grantA?: WireEvent;
  startB?: WireEvent;
  sentLateA?: WireEvent;
  /** The delayed packet: A's client's retry of the held write on a new connection (its send and its answer). */
  retrySentA?: WireEvent;
  retryA?: WireEvent;
  /** Every write's outcome in this run, in order: what the row held before and after each. */
  writes?: readonly WireEvent[];
};

/** A walkthrough step: a step of the one story engine, with its title and words. */
export type Step = StoryStep<Facts> & {
  id: string;
  title: string;
  /** What the step will do, for a page that shows it before it has run (a deep link): no tokens yet. */
  preview: string;
  /** The step's words, from the facts and, for what the row holds now, the row as the database has it. */
  narrate: (facts: Facts, row?: RowNow) => string;
};
