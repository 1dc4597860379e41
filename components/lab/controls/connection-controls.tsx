'use client';

import { useId } from 'react';
import type { LabSnapshot } from '@/lib/model/core/wire';
import { controlButton } from './styles';
import type { useLabCommands } from './use-lab-commands';

/**
 * The delayed-packet labs' own controls: the selected worker's packet relay holds its next write on
 * the wire, or sends what it holds on. The server names the relay by the worker; nothing here names a
 * port or a process.
 */
export function ConnectionControls({
  commands,
  worker,
}: {
  commands: ReturnType<typeof useLabCommands>;
  worker: LabSnapshot['workers'][number] | undefined;
}) {
  const noteId = useId();
  const running = worker?.alive ?? false;
  const name = worker?.name ?? 'the selected worker';
  return (
    <fieldset className="flex flex-wrap items-end gap-2" aria-describedby={noteId}>
      <legend className="mb-1 text-sm font-medium">The network between {name} and PostgreSQL</legend>
      <button
        type="button"
        className={controlButton}
        disabled={!running || commands.busy}
        onClick={() => worker && void commands.hold(worker.id)}
      >
        Hold {name}'s connection
      </button>
      <button
        type="button"
        className={controlButton}
        disabled={!running || commands.busy}
        onClick={() => worker && void commands.release(worker.id)}
      >
        Release {name}'s connection
      </button>
      <p id={noteId} className="w-full text-sm text-slate-700 dark:text-slate-300">
        Each worker here reaches PostgreSQL through a proxy of this server. Hold: from its next write on, the proxy
        stops forwarding that connection's bytes (its heartbeat, on another connection, goes on). The worker is not
        frozen; it waits for an answer. Release: the held bytes are sent, and PostgreSQL receives the write late.
      </p>
    </fieldset>
  );
}
