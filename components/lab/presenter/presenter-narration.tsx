'use client';

import { useRef } from 'react';
import { Marked } from '@/components/glyph';
import type { WalkthroughStatus } from '../walkthrough/use-walkthrough';
import { useShrinkToFit } from './use-shrink-to-fit';

export type NarrationView = {
  /** From 1; undefined while a watcher's page has no step of the trainer's to show. */
  step: number | undefined;
  steps: number;
  title: string;
  /** Empty until the step has happened on the lab. */
  text: string;
  status: WalkthroughStatus;
  /** Where the lab is, when that is not the step shown (a deep link), or while it is not known yet. */
  note?: string | undefined;
};

export type NarrationDrive = {
  next: () => unknown;
  back: () => unknown;
  canNext: boolean;
  canBack: boolean;
  autoplay: boolean;
  /** The story's last step is shown and done: autoplay has stopped there (it says so, not "paused"). */
  atEnd?: boolean;
  toggleAutoplay: () => unknown;
  /** Runs the story's first step again (the lab is reset, or a new failover pair started). */
  startOver: { run: () => unknown; disabled: boolean };
  /** Runs the steps up to the one shown (a deep link's offer); → does the same. */
  offer?: { label: string; run: () => unknown; disabled: boolean } | undefined;
};

/**
 * A step's type, largest first: its length picks where to start (measured at 1280×720 beside the
 * presenter's timeline), and a box that still overflows (a note beside it, the keys' help open) takes
 * the next size down, never a scroll.
 */
const NARRATION_SIZES = ['text-xl', 'text-lg', 'text-base leading-[1.3]', 'text-sm leading-[1.3]'] as const;
/** The longest narration that fits at each of the first sizes, measured. */
const NARRATION_CHARS = [360, 520] as const;

function narrationStart(text: string): number {
  const fits = NARRATION_CHARS.findIndex((chars) => text.length <= chars);
  return fits === -1 ? NARRATION_CHARS.length : fits;
}

const bigButton =
  'rounded-lg border-2 border-slate-400 bg-white px-3 py-1 text-lg font-semibold hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 disabled:cursor-not-allowed disabled:opacity-50 dark:border-slate-600 dark:bg-slate-900 dark:hover:bg-slate-800';

/** The current step's narration in large type, with Back / Next / Play for the trainer. */
export function PresenterNarration({ view, drive }: { view: NarrationView; drive: NarrationDrive | undefined }) {
  const words = useRef<HTMLParagraphElement>(null);
  const start = narrationStart(view.text);
  const smaller = useShrinkToFit(words, NARRATION_SIZES.length - 1 - start, `${view.step}:${view.text}:${view.note}`);
  return (
    <section
      aria-labelledby="presenter-step-title"
      className="flex flex-col gap-1.5 rounded-xl border-2 border-sky-300 bg-sky-50 p-3 lg:min-h-0 lg:flex-1 dark:border-sky-800 dark:bg-sky-950"
    >
      <p className="text-base font-semibold text-sky-900 dark:text-sky-200" data-testid="step-counter">
        {view.step === undefined ? 'The walkthrough' : `Step ${view.step} of ${view.steps}`}
      </p>
      <h2 id="presenter-step-title" className="text-xl font-bold leading-tight">
        {view.title}
      </h2>
      {/* The controls below stay on screen: a narration longer than its room is set smaller. */}
      <p
        ref={words}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: should a screen smaller than a projector's still leave it too little room, it scrolls, and a box that may scroll must be reachable by keyboard.
        tabIndex={0}
        aria-live="polite"
        className={`min-h-16 leading-snug lg:min-h-0 lg:flex-1 lg:overflow-y-auto ${NARRATION_SIZES[start + smaller]}`}
        data-testid="narration"
      >
        {view.text}
      </p>
      {view.note || drive?.offer ? (
        <div className="flex flex-wrap items-center gap-3 rounded-lg border-2 border-sky-300 bg-white p-3 dark:border-sky-800 dark:bg-slate-900">
          {view.note ? (
            <p className="text-xl" data-testid="walkthrough-where">
              {view.note}
            </p>
          ) : null}
          {drive?.offer ? (
            <button
              type="button"
              className={bigButton}
              onClick={() => void drive.offer?.run()}
              disabled={drive.offer.disabled}
            >
              {drive.offer.label}
            </button>
          ) : null}
        </div>
      ) : null}
      {/* No height while idle (empty): the narration keeps the room. */}
      <p role="status" className="text-lg text-slate-700 dark:text-slate-300">
        {view.status.kind === 'working' ? `Waiting for ${view.status.what}…` : ''}
      </p>
      {view.status.kind === 'failed' ? (
        <p role="alert" className="text-xl font-semibold text-rose-800 dark:text-rose-300">
          The step did not complete: {view.status.message}.
        </p>
      ) : null}
      {drive ? (
        <div className="flex flex-wrap items-center gap-2">
          <button
            type="button"
            className={bigButton}
            onClick={() => void drive.back()}
            disabled={!drive.canBack}
            aria-keyshortcuts="ArrowLeft"
          >
            Back
          </button>
          <button
            type="button"
            className={bigButton}
            onClick={() => void drive.next()}
            disabled={!drive.canNext}
            aria-keyshortcuts="ArrowRight"
          >
            Next
          </button>
          <button
            type="button"
            className={bigButton}
            aria-pressed={drive.autoplay}
            aria-keyshortcuts="Space"
            onClick={() => void drive.toggleAutoplay()}
          >
            Autoplay
          </button>
          <span data-testid="autoplay-status" className="text-lg font-semibold">
            {drive.autoplay ? (
              <Marked mark="▶">playing</Marked>
            ) : drive.atEnd ? (
              <Marked mark="■">at the last step</Marked>
            ) : (
              <Marked mark="‖">paused</Marked>
            )}
          </span>
          <button
            type="button"
            className={bigButton}
            onClick={() => void drive.startOver.run()}
            disabled={drive.startOver.disabled}
          >
            Start over
          </button>
        </div>
      ) : null}
    </section>
  );
}
