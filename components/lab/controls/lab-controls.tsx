'use client';

import { useEffect, useId, useState } from 'react';
import type { LabSnapshot } from '@/lib/model/core/wire';
import { DEFAULT_WORKER_SETTINGS, MAX_PAUSE_SECONDS, MAX_WORKERS_PER_LAB } from '@/lib/model/lab/lab-input-limits';
import { hasDriftingClock, hasPacketRelay } from '@/lib/model/lab/lab-kinds';
import { type LeaseClock, MAX_CLOCK_SLOW_PERCENT } from '@/lib/model/lab/worker-clock';
import { DRIFTING_CLOCK_SLOW_PERCENT } from '@/lib/model/walkthrough/walkthrough-drifting-clock';
import { useLabStore } from '../lab-store-provider';
import { ChaosPanel } from './chaos-panel';
import { ConfirmResetDialog, useConfirmedReset } from './confirm-reset';
import { ConnectionControls } from './connection-controls';
import { LeaseClockField } from './lease-clock-field';
import { NoticeArea } from './notice-area';
import { NumberField } from './number-field';
import { ShortcutsHelp, useShortcuts } from './shortcuts';
import { controlButton } from './styles';
import { useLabCommands } from './use-lab-commands';
import { WorkerList } from './worker-list';

const input =
  'w-24 rounded-md border border-slate-300 bg-white px-2 py-1 font-mono text-base dark:border-slate-700 dark:bg-slate-900';

const NAMES = 'ABCDEFGH'.split('');
// One empty list for "no snapshot yet": a new [] per call would make the store's selector unstable.
const NO_WORKERS: LabSnapshot['workers'] = [];

/** Start, pause, resume, crash, restart and reset, with the settings a trainer changes most. */
export function LabControls() {
  const commands = useLabCommands();
  const workers = useLabStore((s) => s.snapshot?.workers ?? NO_WORKERS);
  const selected = useLabStore((s) => s.selectedWorker);
  // The drifting-clock labs' one control of their own: how slow the next worker's clock runs.
  const drifting = useLabStore((s) => hasDriftingClock(s.kind));
  // The delayed-packet labs' own: hold and release the selected worker's connection.
  const relayed = useLabStore((s) => hasPacketRelay(s.kind));
  // And the client timeout of the next worker there: 0 waits for the answer, however late.
  const [retrySeconds, setRetrySeconds] = useState(0);
  const retryNoteId = useId();
  const [clockSlowPercent, setClockSlowPercent] = useState<number>(DRIFTING_CLOCK_SLOW_PERCENT);
  const [leaseClock, setLeaseClock] = useState<LeaseClock>('own');
  const driftNoteId = useId();
  const [name, setName] = useState('A');
  const [ttlSeconds, setTtlSeconds] = useState(DEFAULT_WORKER_SETTINGS.leaseTtlMs / 1000);
  const [pauseSeconds, setPauseSeconds] = useState(6);
  const nameId = useId();
  const selectedWorker = workers.find((w) => w.id === selected);

  // Suggest the next free letter as the name.
  const taken = workers.map((w) => w.name).join(',');
  useEffect(() => {
    const used = new Set(taken.split(','));
    setName((current) => (used.has(current) ? (NAMES.find((n) => !used.has(n)) ?? '') : current));
  }, [taken]);

  const start = () =>
    commands.start({
      name,
      leaseTtlMs: Math.round(ttlSeconds * 1000),
      renewEveryMs: Math.round((ttlSeconds * 1000) / 3),
      writeEveryMs: DEFAULT_WORKER_SETTINGS.writeEveryMs,
      ...(drifting ? { clockSlowPercent, ...(leaseClock === 'own' ? {} : { leaseClock }) } : {}),
      ...(relayed && retrySeconds > 0 ? { retryAfterMs: Math.round(retrySeconds * 1000) } : {}),
    });
  const target = selectedWorker?.id;
  const shared = useLabStore((s) => s.visibility === 'shared');
  const reset = useConfirmedReset({ shared, reset: commands.reset });
  const actions = {
    start,
    pauseFor: () => target && commands.pause(target, 'for', pauseSeconds),
    pauseUntilResumed: () => target && commands.pause(target, 'until-resumed'),
    armCritical: () => target && commands.pause(target, 'critical-window', pauseSeconds),
    resume: () => target && commands.resume(target),
    crash: () => target && commands.crash(target),
    restart: () => target && commands.restart(target),
    reset: reset.request,
  };
  useShortcuts(actions);
  const running = selectedWorker?.alive ?? false;
  const paused = selectedWorker?.phase === 'paused' || selectedWorker?.armed === true;

  return (
    <section
      aria-labelledby="controls-heading"
      className="space-y-4 rounded-lg border border-slate-200 p-4 dark:border-slate-800"
    >
      <h2 id="controls-heading" className="text-lg font-semibold">
        Controls
      </h2>
      <form
        className="flex flex-wrap items-end gap-3"
        onSubmit={(event) => {
          event.preventDefault();
          void start();
        }}
      >
        <label htmlFor={nameId} className="grid gap-1 text-sm font-medium">
          Worker name
          <input id={nameId} className={input} value={name} maxLength={40} onChange={(e) => setName(e.target.value)} />
        </label>
        <NumberField label="Lease TTL (s)" value={ttlSeconds} onChange={setTtlSeconds} min={0.5} max={60} step={0.5} />
        {drifting ? (
          <NumberField
            label="Its clock runs slow by (%)"
            value={clockSlowPercent}
            onChange={setClockSlowPercent}
            min={0}
            max={MAX_CLOCK_SLOW_PERCENT}
            step={5}
            describedBy={driftNoteId}
          />
        ) : null}
        {drifting ? <LeaseClockField value={leaseClock} onChange={setLeaseClock} describedBy={driftNoteId} /> : null}
        {relayed ? (
          <NumberField
            label="Client timeout, then retry (s)"
            value={retrySeconds}
            onChange={setRetrySeconds}
            min={0}
            max={60}
            step={0.5}
            describedBy={retryNoteId}
          />
        ) : null}
        <button
          type="submit"
          className={controlButton}
          disabled={commands.busy || workers.length >= MAX_WORKERS_PER_LAB}
        >
          Start worker <kbd className="ml-1 text-xs opacity-70">N</kbd>
        </button>
      </form>
      {drifting ? (
        <p id={driftNoteId} className="text-sm text-slate-700 dark:text-slate-300">
          The drift is applied to this worker's reading of the clock; everything else is real. 0 % keeps time; 75 %
          makes one real second look like a quarter of one to it. Judging its lease by its own clock, it believes it
          holds the lease after the database says it ran out; asking the database before each write, it does not.
        </p>
      ) : null}
      {relayed ? (
        <p id={retryNoteId} className="text-sm text-slate-700 dark:text-slate-300">
          Client timeout: 0 waits for an answer, however late. Otherwise, a write unanswered for that long is sent again
          with the same token on a new connection, the lease not checked again; the first one may still arrive.
        </p>
      ) : null}
      <WorkerList workers={workers} />
      <fieldset className="flex flex-wrap items-end gap-2">
        <legend className="sr-only">{`Commands for ${selectedWorker?.name ?? 'the selected worker'}`}</legend>
        <NumberField
          label="Pause length (s)"
          value={pauseSeconds}
          onChange={setPauseSeconds}
          min={0.5}
          max={MAX_PAUSE_SECONDS}
          step={0.5}
        />
        <button type="button" className={controlButton} disabled={!running || paused} onClick={actions.pauseFor}>
          Pause {pauseSeconds} s <kbd className="ml-1 text-xs opacity-70">P</kbd>
        </button>
        <button
          type="button"
          className={controlButton}
          disabled={!running || paused}
          onClick={actions.pauseUntilResumed}
        >
          Pause until resumed <kbd className="ml-1 text-xs opacity-70">U</kbd>
        </button>
        <button type="button" className={controlButton} disabled={!running || paused} onClick={actions.armCritical}>
          Freeze before its next write <kbd className="ml-1 text-xs opacity-70">W</kbd>
        </button>
        <button type="button" className={controlButton} disabled={!running || !paused} onClick={actions.resume}>
          Resume <kbd className="ml-1 text-xs opacity-70">R</kbd>
        </button>
        <button type="button" className={controlButton} disabled={!running} onClick={actions.crash}>
          Crash <kbd className="ml-1 text-xs opacity-70">K</kbd>
        </button>
        <button
          type="button"
          className={controlButton}
          // A remote worker is restarted on its own machine.
          disabled={!selectedWorker || selectedWorker.remote === true}
          onClick={actions.restart}
        >
          Restart <kbd className="ml-1 text-xs opacity-70">T</kbd>
        </button>
        <button type="button" className={`${controlButton} ml-auto`} onClick={actions.reset}>
          Reset lab <kbd className="ml-1 text-xs opacity-70">X</kbd>
        </button>
      </fieldset>
      {relayed ? <ConnectionControls commands={commands} worker={selectedWorker} /> : null}
      <ConfirmResetDialog
        {...reset.dialog}
        what="Every worker of this lab stops and its row and history are cleared, for the whole room: every timeline watching it starts again empty."
      />
      <NoticeArea />
      <ChaosPanel />
      <ShortcutsHelp />
    </section>
  );
}
