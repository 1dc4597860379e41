import {
  cutReplicationAction,
  grantFailoverLeaseAction,
  healReplicationAction,
  killFailoverPrimaryAction,
  promoteFailoverStandbyAction,
  resetFailoverLabAction,
  startFailoverPairAction,
  writeFailoverRowAction,
} from '@/app/actions';
import type { ActionResult } from '@/lib/model/core/action-result';
import { FAILOVER_HOLDERS } from '@/lib/model/failover/failover-events';
import { ConfirmResetDialog, useConfirmedReset } from '../controls/confirm-reset';
import { controlButton } from '../controls/styles';

/** The failover lab's free play, for the trainer: every control, each reporting through `act`. */
export function FailoverControls({
  busy,
  act,
}: {
  busy: boolean;
  act: (label: string, run: () => Promise<ActionResult<unknown>>) => Promise<unknown>;
}) {
  // The failover lab is the room's one, shared: its reset is asked first.
  const reset = useConfirmedReset({
    shared: true,
    reset: () => act('Reset the lab', () => resetFailoverLabAction({})),
  });
  return (
    <section aria-labelledby="fo-controls" className="space-y-2 rounded-lg border p-4">
      <h2 id="fo-controls" className="text-xl font-semibold">
        Free play
      </h2>
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          className={controlButton}
          disabled={busy}
          onClick={() => void act('Start the pair (asynchronous)', () => startFailoverPairAction({ mode: 'async' }))}
        >
          Start the pair (asynchronous)
        </button>
        <button
          type="button"
          className={controlButton}
          disabled={busy}
          onClick={() => void act('Start the pair (synchronous)', () => startFailoverPairAction({ mode: 'sync' }))}
        >
          Start the pair (synchronous)
        </button>
        <button
          type="button"
          className={controlButton}
          disabled={busy}
          onClick={() => void act('Cut replication', () => cutReplicationAction({}))}
        >
          Cut replication
        </button>
        <button
          type="button"
          className={controlButton}
          disabled={busy}
          onClick={() => void act('Heal replication', () => healReplicationAction({}))}
        >
          Heal replication
        </button>
        <button
          type="button"
          className={controlButton}
          disabled={busy}
          onClick={() => void act('Kill the primary', () => killFailoverPrimaryAction({}))}
        >
          Kill the primary (SIGKILL)
        </button>
        <button
          type="button"
          className={controlButton}
          disabled={busy}
          onClick={() => void act('Promote the standby', () => promoteFailoverStandbyAction({}))}
        >
          Promote the standby
        </button>
        <button type="button" className={controlButton} disabled={busy} onClick={reset.request}>
          Reset the lab (stops the pair)
        </button>
        <ConfirmResetDialog
          {...reset.dialog}
          what="The primary and the standby stop and the lab's history is cleared, for the whole room: every timeline watching it starts again empty."
        />
      </div>
      <div className="flex flex-wrap gap-2">
        {FAILOVER_HOLDERS.map((holder) => (
          <span key={holder} className="flex gap-1">
            <button
              type="button"
              className={controlButton}
              disabled={busy}
              onClick={() => void act(`Grant ${holder} the lock`, () => grantFailoverLeaseAction({ holder }))}
            >
              Grant {holder}
            </button>
            <button
              type="button"
              className={controlButton}
              disabled={busy}
              onClick={() => void act(`${holder} writes`, () => writeFailoverRowAction({ holder }))}
            >
              {holder} writes
            </button>
          </span>
        ))}
      </div>
    </section>
  );
}
