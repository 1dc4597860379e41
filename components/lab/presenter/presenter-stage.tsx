'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { type ReactNode, useCallback, useEffect, useId, useRef, useState } from 'react';
import type { LabSummary } from '@/lib/model/lab/lab-instance';
import { PRESENTER_METRICS } from '@/lib/model/timeline/timeline-layout';
import { ThemeToggle } from '../../theme-toggle';
import { NoticeArea } from '../controls/notice-area';
import { DriveStatus } from '../drive-status';
import { useLabStore, useLabStoreApi } from '../lab-store-provider';
import { LiveTables } from '../live-tables';
import { Timeline } from '../timeline/timeline';
import { VerdictBanner } from '../verdict-banner';
import { PresenterHelp } from './presenter-help';
import { type DriveKeys, PRESENTER_KEYS, usePresenterKeys } from './presenter-keys';
import { type NarrationDrive, type NarrationView, PresenterNarration } from './presenter-narration';
import { useDrawingFit } from './presenter-verdict';
import { WorkerStrip } from './worker-strip';

/*
 * At 1280×720 (a projector) the whole stage fits without scrolling, at every step: the workers and
 * the timeline, drawn with the presenter's metrics (lane names, tokens and write labels of 20 px and
 * more, at the canvas's own resolution, not a CSS zoom of small print), take most of the screen; the
 * narration stands beside them, its type smaller for a longer step; the tables open on request below.
 */

const headerButton =
  'rounded-lg border-2 border-slate-300 px-2.5 py-0.5 text-base font-semibold hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 dark:border-slate-700 dark:hover:bg-slate-900';

export type StageDrive = {
  narration: NarrationDrive;
  togglePause: () => unknown;
  /** W: freeze the selected worker before its next write, until resumed (the lab page's W). */
  freezeBeforeWrite: () => unknown;
  resume: () => unknown;
  /** Q: asks the room about the next step, or reveals the open question's answers. */
  askOrReveal: () => unknown;
};

/**
 * Presenter mode's screen: narration, workers, the timeline and tables, large, driven by single keys.
 * A lab without workers (the failover lab) gives its own `tables` (its servers) and `side` (beside
 * the narration, instead of the workers' strip), and `hints` for its keys.
 */
export function PresenterStage(props: {
  lab: LabSummary;
  subtitle: string;
  narration: NarrationView;
  drive: StageDrive | undefined;
  tables?: ReactNode;
  side?: ReactNode;
  hints?: ReactNode;
  /** The room's question, under the narration. */
  poll?: ReactNode;
}) {
  const { lab, drive } = props;
  const router = useRouter();
  const store = useLabStoreApi();
  const [helpOpen, setHelpOpen] = useState(false);
  const [refusal, setRefusal] = useState('');
  const fullscreen = useFullscreen();
  const helpId = useId();
  const drawing = useRef<HTMLDivElement>(null);
  const fit = useDrawingFit(drawing);
  const exitHref = `/labs/${lab.id}`;

  const driveKeys: DriveKeys | undefined = drive && {
    next: drive.narration.next,
    back: drive.narration.back,
    toggleAutoplay: drive.narration.toggleAutoplay,
    togglePause: drive.togglePause,
    freezeBeforeWrite: drive.freezeBeforeWrite,
    resume: drive.resume,
    askOrReveal: drive.askOrReveal,
  };
  usePresenterKeys({
    drive: driveKeys,
    refused: (key) => setRefusal(`${key} is the trainer's key: you are watching, so it does nothing here.`),
    selectWorker: (index) => {
      const { snapshot, selectWorker } = store.getState();
      const worker = snapshot?.workers[index];
      if (worker) selectWorker(worker.id);
    },
    toggleFullscreen: fullscreen.toggle,
    toggleHelp: () => setHelpOpen((open) => !open),
    closeHelp: () => {
      if (!helpOpen) return false;
      setHelpOpen(false);
      return true;
    },
    exit: () => router.push(exitHref),
  });

  return (
    // At lg and up the stage is the screen's height: the columns share what the header leaves, and
    // the narration's controls stay on screen whatever the step says.
    <main className="mx-auto flex max-w-[120rem] flex-col gap-2 px-4 py-2 text-xl lg:h-dvh">
      <header className="flex flex-wrap items-center justify-between gap-2">
        <h1 className="text-2xl font-bold">
          Fencing Lab <span className="font-normal">· {props.subtitle}</span>
        </h1>
        <div className="flex flex-wrap items-center gap-2">
          <DriveStatus drives={!!drive} label={drive ? 'Presenting: you drive' : 'Watching'} large />
          <button
            type="button"
            className={headerButton}
            aria-expanded={helpOpen}
            aria-controls={helpId}
            aria-keyshortcuts="Shift+?"
            onClick={() => setHelpOpen(!helpOpen)}
          >
            ? Keys
          </button>
          <button type="button" className={headerButton} aria-keyshortcuts="F" onClick={fullscreen.toggle}>
            {fullscreen.on ? 'Leave full screen' : 'Full screen'}
          </button>
          <Link href={exitHref} className={headerButton} aria-keyshortcuts="Escape">
            Leave presenter mode
          </Link>
          <ThemeToggle />
        </div>
      </header>
      {helpOpen ? <PresenterHelp id={helpId} canDrive={drive !== undefined} /> : null}
      {drive ? null : <WatchingBanner labHref={exitHref} refusal={refusal} />}
      <div className="grid gap-4 lg:min-h-0 lg:flex-1 lg:grid-cols-[minmax(0,1fr)_28rem]">
        {/* It scrolls only should a screen be smaller than the stage: its parts say what fits (presenter-verdict.tsx). */}
        <div ref={drawing} className="min-w-0 space-y-2 lg:min-h-0 lg:overflow-y-auto" data-testid="presenter-drawing">
          {props.side === undefined ? <WorkerStrip /> : props.side}
          <VerdictBanner listed={fit.listed} />
          <Timeline metrics={PRESENTER_METRICS} hint={fit.hint} />
          <details className="rounded-lg border border-slate-200 px-3 py-1 dark:border-slate-800">
            <summary className="cursor-pointer text-lg font-semibold">The row and the lease, as tables</summary>
            <div className="space-y-3 py-2">{props.tables ?? <LiveTables />}</div>
          </details>
        </div>
        <div className="flex flex-col gap-2 lg:min-h-0">
          <PresenterNarration view={props.narration} drive={drive?.narration} />
          {props.poll}
          {drive ? (props.hints ?? <DriveHints />) : null}
          <NoticeArea />
        </div>
      </div>
    </main>
  );
}

function DriveHints() {
  const selected = useLabStore((s) => s.snapshot?.workers.find((w) => w.id === s.selectedWorker)?.name);
  const shared = useLabStore((s) => s.visibility === 'shared');
  return (
    <p className="text-sm text-slate-700 dark:text-slate-300">
      <kbd>→</kbd> next · <kbd>Space</kbd> play/pause · <kbd>P</kbd> pause {selected ?? 'the selected worker'} ·{' '}
      {shared ? (
        <>
          <kbd>Q</kbd> ask the room ·{' '}
        </>
      ) : null}
      <kbd>?</kbd> all keys
    </p>
  );
}

/** A watcher's notice, in two lines (the stage must fit the screen): what they see, and why the driving keys do nothing. */
/** The keys that drive the lab, named as the keys' help names them: a watcher's are disabled. */
const DRIVING_KEYS = PRESENTER_KEYS.filter((k) => k.drives)
  .map((k) => k.keys)
  .join(' ');

function WatchingBanner({ labHref, refusal }: { labHref: string; refusal: string }) {
  return (
    <section
      aria-labelledby="watching-heading"
      data-testid="read-only"
      className="flex flex-wrap items-baseline gap-x-3 rounded-xl border-2 border-amber-300 bg-amber-50 px-4 py-2 text-lg dark:border-amber-800 dark:bg-amber-950"
    >
      <h2 id="watching-heading" className="text-xl font-semibold">
        Watching: read-only
      </h2>
      <p>
        Only the trainer drives this lab; the narration shows the step the trainer shows. The keys {DRIVING_KEYS} are
        disabled here. To drive, enter the trainer key on{' '}
        <Link className="font-semibold underline" href={labHref}>
          the lab's page
        </Link>
        .
      </p>
      <p role="status" className="font-semibold">
        {refusal}
      </p>
    </section>
  );
}

function useFullscreen() {
  const [on, setOn] = useState(false);
  useEffect(() => {
    const update = () => setOn(document.fullscreenElement !== null);
    document.addEventListener('fullscreenchange', update);
    return () => document.removeEventListener('fullscreenchange', update);
  }, []);
  const toggle = useCallback(() => {
    const change = document.fullscreenElement
      ? document.exitFullscreen()
      : document.documentElement.requestFullscreen?.();
    // Browsers may refuse (no user gesture, an iframe): the page then simply stays as it is.
    void change?.catch(() => undefined);
  }, []);
  return { on, toggle };
}
