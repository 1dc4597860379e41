'use client';

import { useCallback, useEffect, useRef, useState } from 'react';
import type { LabId } from '@/lib/model/lab/lab-kinds';
import { runStoryStep, type StoryDriver, StoryStalled } from '@/lib/model/story/story-engine';
import { type Facts, factsFrom, type Step, walkthroughSettings } from '@/lib/model/walkthrough/walkthrough';
import { stepsToReach } from '@/lib/model/walkthrough/walkthrough-progress';
import { useLabCommands } from '../controls/use-lab-commands';
import { useLabStore, useLabStoreApi } from '../lab-store-provider';
import { useShownStepRecorder } from './use-shown-step-recorder';
import { useFactsOfStep, useWalkthroughPosition } from './use-walkthrough-position';

const STEP_TIMEOUT_MS = 30_000;
const AUTOPLAY_READ_MS = 4_500;

export type WalkthroughStatus =
  | { kind: 'idle' }
  | { kind: 'working'; what: string }
  | { kind: 'failed'; message: string };

/** A deep link's address names a step; once the trainer acts, the address is the lab's plain one again. */
function forgetDeepLink() {
  const url = new URL(window.location.href);
  if (!url.searchParams.has('step')) return;
  url.searchParams.delete('step');
  window.history.replaceState(window.history.state, '', url);
}

/**
 * Drives the real lab through the walkthrough's steps: each step's action goes through the same
 * server actions as the controls, and the step is complete when its event arrives on the live feed.
 * Arriving runs nothing: the page shows the step the lab records as shown (the trainer's, before a
 * reload), else the step the lab is at (read from its events), or the step a deep link names
 * (`target`, from 0); only `next`, `back`, `runToShown` or `restart` (a click or a key) drive the lab
 * and move the step shown, which the lab then records for the watchers' pages.
 */
export function useWalkthrough(lab: LabId, target: number | undefined) {
  const store = useLabStoreApi();
  const commands = useLabCommands();
  const recorder = useShownStepRecorder();
  // After a reset this page ran, the events before it may linger until the feed says so.
  const [runMark, setRunMark] = useState(0);
  // Another database behind the app (its history read again from the start): its ids are not ours.
  const database = useLabStore((s) => s.database);
  const markedOn = useRef(database);
  useEffect(() => {
    if (markedOn.current === database) return;
    markedOn.current = database;
    setRunMark(0);
  }, [database]);
  const { steps, position, run: runEvents } = useWalkthroughPosition(lab, runMark);
  const reached = position === undefined ? undefined : position.kind === 'at' ? position.step : -1;
  // In the snapshot that comes with the history: known when `reached` is.
  const recorded = useLabStore((s) => s.snapshot?.walkthroughStep);
  const [chosen, setChosen] = useState<number | undefined>(undefined);
  const [deepLink, setDeepLink] = useState(target !== undefined);
  const [status, setStatus] = useState<WalkthroughStatus>({ kind: 'idle' });
  const [autoplay, setAutoplay] = useState(false);
  const running = useRef(false);
  const last = steps.length - 1;
  const arrivedAt =
    recorded !== undefined && reached !== undefined && reached >= 0 ? Math.min(recorded, reached) : reached;
  const shown = Math.min(last, chosen ?? target ?? Math.max(arrivedAt ?? 0, 0));
  // The steps the shown one still needs before it is real: none once the lab is there.
  const pending = position === undefined ? [] : stepsToReach(position, shown);

  // Pinned once the lab's position is known: a step that completes by itself (a lease running out)
  // must not move the narration under the trainer's eyes; Next shows it. Arriving records nothing.
  useEffect(() => {
    if (chosen === undefined && reached !== undefined) setChosen(shown);
  }, [chosen, reached, shown]);

  /** The trainer moved to step `index`: shown here, and recorded for the watchers' pages. */
  const show = useCallback(
    (index: number) => {
      setChosen(index);
      recorder.record(index);
    },
    [recorder],
  );

  /** Resolves true once `done` holds of the lab's events after `mark`, or false after the step's time-out. */
  const waitFor = useCallback(
    (done: Step['done'], mark: number) =>
      new Promise<boolean>((resolve) => {
        const check = () =>
          done(
            factsFrom(
              store.getState().events.filter((e) => e.id > mark),
              lab,
            ),
          );
        if (check()) return resolve(true);
        const timer = setTimeout(() => {
          unsubscribe();
          resolve(false);
        }, STEP_TIMEOUT_MS);
        const unsubscribe = store.subscribe(() => {
          if (!check()) return;
          clearTimeout(timer);
          unsubscribe();
          resolve(true);
        });
      }),
    [store, lab],
  );

  /** Runs step `index` for real, through the one story engine; resolves undefined (with a message shown) if it did not complete. */
  const runStep = useCallback(
    async (index: number, mark: number): Promise<number | undefined> => {
      const step = steps[index];
      if (!step) return undefined;
      setStatus({ kind: 'working', what: step.waitingFor });
      let currentMark = mark;
      const must = async (ok: Promise<unknown>, failed: string) => {
        if (!(await ok)) throw new StoryStalled(failed);
      };
      // The page's driver: each action through the same server actions as the controls, each wait on the live feed.
      const driver: StoryDriver<Facts> = {
        async reset() {
          await recorder.settled();
          await must(commands.reset(), 'the lab could not be reset');
          currentMark = store.getState().events.at(-1)?.id ?? 0;
          setRunMark(currentMark);
        },
        start: (settings) => must(commands.start(settings), `${settings.name} could not start`),
        freeze: (worker) => must(commands.pause(worker, 'critical-window'), `${worker} could not be frozen`),
        resume: async (worker) => {
          await commands.resume(worker);
        },
        hold: (worker) => must(commands.hold(worker), `${worker}'s connection could not be held`),
        release: (worker) => must(commands.release(worker), `${worker}'s connection could not be released`),
        stageToken: async () => {
          throw new StoryStalled('a walkthrough stages no token');
        },
        waitFor: (what, done) =>
          must(
            waitFor(done, currentMark),
            `nothing happened for ${STEP_TIMEOUT_MS / 1000} s while waiting for ${what}`,
          ),
      };
      try {
        await runStoryStep(step, walkthroughSettings(lab), driver);
      } catch (error) {
        if (!(error instanceof StoryStalled)) throw error;
        setStatus({ kind: 'failed', message: error.message });
        return undefined;
      }
      show(index);
      setStatus({ kind: 'idle' });
      return currentMark;
    },
    [commands, lab, recorder, show, steps, store, waitFor],
  );

  /** Runs `indexes` in order, one page action at a time; stops at the first that fails. */
  const run = useCallback(
    async (indexes: readonly number[]) => {
      if (running.current) return;
      running.current = true;
      forgetDeepLink();
      setDeepLink(false);
      try {
        let mark: number | undefined = runMark;
        for (const index of indexes) {
          mark = await runStep(index, mark);
          if (mark === undefined) return;
        }
      } finally {
        running.current = false;
      }
    },
    [runMark, runStep],
  );

  /** The steps up to the one shown (a deep link's offer, or the first step of a lab off script). */
  const runToShown = useCallback(() => run(pending), [pending, run]);

  const next = useCallback(async () => {
    if (running.current || reached === undefined) return;
    if (pending.length > 0) return runToShown();
    forgetDeepLink();
    setDeepLink(false);
    if (shown < reached) return show(shown + 1);
    if (shown < last) return run([shown + 1]);
  }, [last, pending.length, reached, run, runToShown, show, shown]);

  const back = useCallback(() => {
    forgetDeepLink();
    setDeepLink(false);
    show(Math.max(0, shown - 1));
  }, [show, shown]);

  const restart = useCallback(() => run([0]), [run]);

  // The shown step is told as of its moment when the lab has gone on past it.
  const shownFacts = useFactsOfStep(lab, steps, runEvents, position, shown);

  // Autoplay: give a reader time on a completed step, then go on. `next` changes with every event
  // the lab records (a writing worker records one a second), so the timer reads it through a ref:
  // depending on it restarted the timer before it fired.
  const nextRef = useRef(next);
  nextRef.current = next;
  useEffect(() => {
    // A step that completes by itself (a lease running out) puts the lab ahead of the step shown:
    // Next then only shows it, so autoplay goes on there too.
    if (!autoplay || status.kind !== 'idle' || shown >= last || reached === undefined || shown > reached) return;
    const timer = setTimeout(() => void nextRef.current(), AUTOPLAY_READ_MS);
    return () => clearTimeout(timer);
  }, [autoplay, reached, shown, status.kind, last]);

  // Autoplay ends at the last step, once it is done: it does not go on saying it plays.
  useEffect(() => {
    if (autoplay && status.kind === 'idle' && shown >= last && reached !== undefined && reached >= last)
      setAutoplay(false);
  }, [autoplay, status.kind, shown, last, reached]);

  return {
    steps,
    shown,
    /**
     * The step whose moment the panels beside show (use-step-frame.ts): the shown one, none off script
     * (the lab runs on as it is until the first step resets it, whatever steps its events would complete).
     */
    framed: position?.kind === 'off-script' ? undefined : shown,
    /** The step the lab is at (from 0); -1 off script; undefined until the lab's history is in. */
    reached,
    position,
    pending,
    /** The page came from a deep link and nobody has acted on it yet. */
    deepLink,
    /** The facts the shown step is told from (as of its moment when the lab is past it). */
    facts: shownFacts ?? factsFrom([], lab),
    /** The lab's events of this run (after a reset this page ran, before the feed said so). */
    run: runEvents,
    status,
    autoplay,
    setAutoplay,
    next,
    back,
    restart,
    runToShown,
  };
}
