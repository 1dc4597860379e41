import 'server-only';
import { stalePerMinute } from '../model/chaos/chaos-tally';
import { FencingError, isFencingError } from '../model/core/errors';
import type { ChaosRunView } from '../model/core/wire';
import { MAX_WORKERS_PER_SERVER } from '../model/lab/lab-inputs';
import type { LabInstance } from '../model/lab/lab-instance';
import { singleton } from '../os/process-singletons';
import { getSupervisor } from '../supervisor/supervisor';
import { runChaos } from './run-chaos';

/** Chaos runs started from the UI, one per lab at a time, one list per process like the supervisor. */
const runs = () => singleton('chaos.runs', () => new Map<string, ChaosRunView>());

export function chaosRunOf(labId: string): ChaosRunView | undefined {
  return runs().get(labId);
}

/** Starts a run in the background; its progress shows in the lab's feed, its verdict at the end. */
export function startChaosRun(
  lab: LabInstance,
  options: { seed: number; workers: number; seconds: number },
): ChaosRunView {
  if (runs().get(lab.id)?.running)
    throw new FencingError('invalid_input', 'a chaos run is already going on in this lab');
  // Said now, not as a failed run later: the run first stops the lab's own workers, then starts its own.
  const supervisor = getSupervisor();
  const elsewhere = supervisor.processIds().length - supervisor.local.inLab(lab).length;
  if (elsewhere + options.workers > MAX_WORKERS_PER_SERVER) {
    throw new FencingError(
      'limit_reached',
      `this server runs ${elsewhere} workers in other labs; ${options.workers} more would pass its limit of ${MAX_WORKERS_PER_SERVER}`,
    );
  }
  const view: ChaosRunView = { ...options, running: true, endsAt: Date.now() + options.seconds * 1000 };
  runs().set(lab.id, view);
  void runChaos({ lab, ...options })
    .then((report) => {
      runs().set(lab.id, {
        ...view,
        running: false,
        result: {
          ok: report.verdict.ok,
          violations: report.verdict.violations.length,
          accepted: report.totals.accepted,
          staleAttempts: report.totals.staleAttempts,
          staleAccepted: report.totals.staleAccepted,
          stalePerMinute: stalePerMinute(report.totals),
        },
      });
    })
    .catch((error: unknown) => {
      console.error('[chaos] the run failed:', error);
      const failure = isFencingError(error) ? error.message : 'the run failed; see the server log';
      runs().set(lab.id, { ...view, running: false, failure });
    });
  return view;
}
