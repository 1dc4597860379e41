import {
  cutReplicationAction,
  grantFailoverLeaseAction,
  healReplicationAction,
  killFailoverPrimaryAction,
  promoteFailoverStandbyAction,
  recordFailoverShownStepAction,
  startFailoverPairAction,
  writeFailoverRowAction,
} from '@/app/actions';
import type { ActionResult } from '@/lib/model/core/action-result';
import type { FailoverAction } from '@/lib/model/failover/failover-walkthrough';

/** A walkthrough step's action, sent to the server (the trainer's controls, validated there). */
export function runFailoverAction(action: FailoverAction): Promise<ActionResult<unknown>> {
  switch (action.kind) {
    case 'start':
      return startFailoverPairAction({ mode: action.mode });
    case 'grant':
      return grantFailoverLeaseAction({ holder: action.holder });
    case 'write':
      return writeFailoverRowAction({ holder: action.holder });
    case 'cut':
      return cutReplicationAction({});
    case 'heal':
      return healReplicationAction({});
    case 'kill':
      return killFailoverPrimaryAction({});
    case 'promote':
      return promoteFailoverStandbyAction({});
  }
}

/** Records the walkthrough step (from 0) the trainer shows, for the watchers' pages. */
export const recordFailoverShownStep = (step: number): Promise<ActionResult<unknown>> =>
  recordFailoverShownStepAction({ step });
