'use client';

import { useEffect, useId, useMemo, useState } from 'react';
import { startSweepAction, stopSweepAction, sweepStatusAction } from '@/app/actions';
import { Marked } from '@/components/glyph';
import { describeRun } from '@/lib/model/sweep/sweep-cell';
import { readSweepForm, SWEEP_FIELD_LABELS, type SweepFormFields } from '@/lib/model/sweep/sweep-form';
import { layoutHeatmap } from '@/lib/model/sweep/sweep-heatmap';
import { DEFAULT_SWEEP, SWEEP_LIMITS } from '@/lib/model/sweep/sweep-limits';
import { type SweepView, sweepProgressText } from '@/lib/model/sweep/sweep-view';
import { NumberField } from '../lab/controls/number-field';
import { controlButton } from '../lab/controls/styles';
import { useDarkTheme } from '../lab/timeline/use-dark-theme';
import { SweepExport } from './sweep-export';
import { SweepHeatmap } from './sweep-heatmap';

const POLL_MS = 700;
const { pauses: PAUSES_LABEL, ttls: TTLS_LABEL, drifts: DRIFTS_LABEL } = SWEEP_FIELD_LABELS;
const inputClass =
  'w-64 rounded-md border border-slate-300 bg-white px-2 py-1 font-mono text-base dark:border-slate-700 dark:bg-slate-900';

/**
 * The sweep's form, its progress and its heat map. The server runs the sweep (real workers, a
 * private lab per run); this browser asks for its progress while it runs.
 */
export function SweepPanel({ initial, mayStart }: { initial?: SweepView; mayStart: boolean }) {
  const [pauses, setPauses] = useState(DEFAULT_SWEEP.pausesMs.join(', '));
  const [ttls, setTtls] = useState(DEFAULT_SWEEP.ttlsMs.join(', '));
  const [drifts, setDrifts] = useState(DEFAULT_SWEEP.driftsPercent.join(', '));
  const [concurrency, setConcurrency] = useState<number>(SWEEP_LIMITS.concurrency.default);
  const [view, setView] = useState<SweepView | undefined>(initial);
  const [error, setError] = useState<string | undefined>(undefined);
  /** The error shown is a refusal of what the fields held: it follows the fields until they are right. */
  const [fieldsRefused, setFieldsRefused] = useState(false);
  const [starting, setStarting] = useState(false);
  const dark = useDarkTheme();
  const hintId = useId();
  const stopHintId = useId();

  const running = view?.running ?? false;
  const viewId = view?.id;
  useEffect(() => {
    if (!running || !viewId) return;
    const timer = setInterval(async () => {
      const result = await sweepStatusAction({ id: viewId });
      if (result.ok) return setView(result.data);
      // The server lost it (restarted, or another server behind a balancer): stop asking.
      setError(result.error.message);
      setView((shown) => shown && { ...shown, running: false, failure: result.error.message });
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [running, viewId]);

  const refuse = (message: string) => {
    setError(message);
    setFieldsRefused(true);
  };

  // Once refused, the fields are checked again at every change: a fixed field clears the refusal,
  // another mistake replaces it.
  const edit = (change: Partial<SweepFormFields>) => {
    const fields = { pauses, ttls, drifts, concurrency, ...change };
    setPauses(fields.pauses);
    setTtls(fields.ttls);
    setDrifts(fields.drifts);
    setConcurrency(fields.concurrency);
    if (!fieldsRefused) return;
    const reading = readSweepForm(fields);
    setError(reading.ok ? undefined : reading.error);
    if (reading.ok) setFieldsRefused(false);
  };

  const start = async () => {
    setError(undefined);
    setFieldsRefused(false);
    const reading = readSweepForm({ pauses, ttls, drifts, concurrency });
    if (!reading.ok) return refuse(reading.error);
    setStarting(true);
    const result = await startSweepAction(reading.input);
    setStarting(false);
    if (result.ok) setView(result.data);
    else if (result.error.code === 'invalid_input') refuse(result.error.message);
    else setError(result.error.message);
  };

  const stop = async () => {
    if (!viewId) return;
    setError(undefined);
    const result = await stopSweepAction({ id: viewId });
    if (result.ok) setView(result.data);
    else setError(result.error.message);
  };

  const layout = useMemo(() => (view ? layoutHeatmap(view.grid, view.results, view.running) : undefined), [view]);
  const last = view?.results.reduce<SweepView['results'][number] | undefined>(
    (latest, r) => (latest === undefined || r.index > latest.index ? r : latest),
    undefined,
  );
  const progress = view ? sweepProgressText(view) : '';
  const title = view
    ? `The pause, swept: pauses ${view.grid.pausesMs.join(', ')} ms × lease TTLs ${view.grid.ttlsMs.join(', ')} ms${view.grid.driftsPercent.some((d) => d > 0) ? ` × A's clock ${view.grid.driftsPercent.join(', ')} % slow` : ''}`
    : '';

  return (
    <div className="space-y-6">
      <form
        aria-labelledby="sweep-form-heading"
        className="space-y-3 rounded-lg border border-slate-200 p-4 dark:border-slate-800"
        onSubmit={(event) => {
          event.preventDefault();
          void start();
        }}
      >
        <h2 id="sweep-form-heading" className="text-lg font-semibold">
          The grid
        </h2>
        <p id={hintId} className="text-sm text-slate-700 dark:text-slate-300">
          Whole numbers separated by commas, at most {SWEEP_LIMITS.valuesPerAxis} per list and {SWEEP_LIMITS.points}{' '}
          points in all. Pauses {SWEEP_LIMITS.pauseMs.min}–{SWEEP_LIMITS.pauseMs.max} ms, TTLs {SWEEP_LIMITS.ttlMs.min}–
          {SWEEP_LIMITS.ttlMs.max} ms, drift 0–{SWEEP_LIMITS.driftPercent.max} % slow (above 0, the drifting-clock
          labs). Each point runs twice, without fencing and fenced.
        </p>
        <div className="flex flex-wrap items-end gap-4">
          <label className="grid gap-1 text-sm font-medium">
            {PAUSES_LABEL}
            <input
              className={inputClass}
              value={pauses}
              onChange={(e) => edit({ pauses: e.target.value })}
              aria-describedby={hintId}
            />
          </label>
          <label className="grid gap-1 text-sm font-medium">
            {TTLS_LABEL}
            <input
              className={inputClass}
              value={ttls}
              onChange={(e) => edit({ ttls: e.target.value })}
              aria-describedby={hintId}
            />
          </label>
          <label className="grid gap-1 text-sm font-medium">
            {DRIFTS_LABEL}
            <input
              className={inputClass}
              value={drifts}
              onChange={(e) => edit({ drifts: e.target.value })}
              aria-describedby={hintId}
            />
          </label>
          <NumberField
            label="Runs at once"
            value={concurrency}
            onChange={(value) => edit({ concurrency: value })}
            min={SWEEP_LIMITS.concurrency.min}
            max={SWEEP_LIMITS.concurrency.max}
          />
          <button type="submit" className={controlButton} disabled={starting || running}>
            {running ? 'Sweeping…' : 'Start the sweep'}
          </button>
        </div>
        {mayStart ? null : (
          <p className="text-sm font-semibold">
            Your private labs have all closed: a sweep is started, as workers are, from a browser with a private lab
            open. Open one on the home page first (your sweeps stay yours to follow and stop).
          </p>
        )}
        <p role="alert" className="text-sm font-semibold text-rose-800 dark:text-rose-300">
          {error ? <Marked mark="✗">{error}</Marked> : null}
        </p>
      </form>

      {view && layout ? (
        <section aria-labelledby="sweep-result-heading" className="space-y-4">
          <h2 id="sweep-result-heading" className="text-xl font-semibold">
            {title}
          </h2>
          <div
            role="progressbar"
            aria-label="Sweep progress"
            aria-valuemin={0}
            aria-valuemax={view.total}
            aria-valuenow={view.done}
            aria-valuetext={progress}
            className="h-4 w-full max-w-xl overflow-hidden rounded-full border border-slate-400 bg-slate-100 dark:bg-slate-800"
          >
            <div
              className="h-full bg-sky-700 dark:bg-sky-400"
              style={{ width: `${(view.done / Math.max(1, view.total)) * 100}%` }}
            />
          </div>
          <p role="status" className="text-sm">
            {progress}
            {last ? `. Last: ${describeRun(last)}` : ''}
          </p>
          {running ? (
            <button
              type="button"
              className={controlButton}
              onClick={() => void stop()}
              disabled={view.stopped}
              aria-describedby={stopHintId}
            >
              {view.stopped ? 'Stopping…' : 'Stop the sweep'}
            </button>
          ) : null}
          {running ? (
            <p id={stopHintId} className="text-sm text-slate-700 dark:text-slate-300">
              No new run starts; the runs under way stop their workers and are shown as stopped.
            </p>
          ) : null}
          <SweepHeatmap layout={layout} theme={dark ? 'dark' : 'light'} label={`Heat map: ${title}`} />
          <SweepExport layout={layout} title={title} screenIsDark={dark} />
        </section>
      ) : null}
    </div>
  );
}
