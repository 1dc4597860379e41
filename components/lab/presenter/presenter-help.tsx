import { PRESENTER_KEYS } from './presenter-keys';

/** The presenter's keys in words; for a watcher, the ones that drive are marked as the trainer's. */
export function PresenterHelp({ id, canDrive }: { id: string; canDrive: boolean }) {
  return (
    <section
      id={id}
      aria-labelledby={`${id}-heading`}
      className="rounded-xl border-2 border-slate-300 bg-white p-4 text-xl shadow-lg dark:border-slate-700 dark:bg-slate-900"
    >
      <h2 id={`${id}-heading`} className="mb-2 text-2xl font-semibold">
        Presenter keys
      </h2>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1.5">
        {PRESENTER_KEYS.map(({ keys, what, drives }) => (
          <div key={keys} className="contents">
            <dt>
              <kbd className="rounded border border-slate-400 px-2 font-mono dark:border-slate-600">{keys}</kbd>
            </dt>
            <dd>
              {what}
              {drives && !canDrive ? <strong> (trainer only: disabled here)</strong> : null}
            </dd>
          </div>
        ))}
      </dl>
      <p className="mt-2 text-base text-slate-600 dark:text-slate-400">Keys do nothing while you type in a field.</p>
    </section>
  );
}
