import 'server-only';
import { claimUnwatchedSharedLabs, clearIdleStop, recordIdleStop } from '../../db/lab-doors';
import { recordLabUse } from '../../db/labs';
import { roomSettings } from '../config/room-settings';
import { OutageLog } from '../log/outage-log';
import type { WorkerSettings } from '../model/lab/lab-inputs';
import type { LabInstance } from '../model/lab/lab-instance';
import { isLabId } from '../model/lab/lab-kinds';
import { singleton } from '../os/process-singletons';
import { getSupervisor } from '../supervisor/supervisor';
import { getPrivateLabs } from './private-labs';

/*
 * A room left running (issue 23): a shared lab nobody has watched (a live page on any app server) or
 * driven for FENCING_LAB_SHARED_IDLE_MINUTES (15) stops its workers, each lane ended with the reason,
 * and its page says so with one click to start them again. Its history stays as it is.
 */

const WATCH_EVERY_MS = 15_000;

/** How long a shared lab may run with nobody watching or driving it: FENCING_LAB_SHARED_IDLE_MINUTES. */
export function sharedIdleLimitMs(): number {
  return roomSettings().sharedIdleMinutes * 60_000;
}

/** The words of an idle stop, as the lanes record them and the page shows them. */
export function idleStopReason(idleMinutes: number): string {
  return `nobody watched or drove the lab for ${idleMinutes} min`;
}

/** One watch: stops every unwatched shared lab's workers. Returns the ids of the labs it stopped. */
export async function stopUnwatchedSharedLabs(): Promise<string[]> {
  const watched = getPrivateLabs().watchedLabIds();
  // A lab watched here must look used to every other server's watch.
  await recordLabUse(watched);
  const limit = sharedIdleLimitMs();
  const idleMinutes = Math.max(1, Math.round(limit / 60_000));
  const claimed = await claimUnwatchedSharedLabs({ idleMs: limit, keepOpen: watched });
  const stopped: string[] = [];
  for (const row of claimed) {
    if (!isLabId(row.kind)) continue;
    const lab: LabInstance = {
      id: row.id,
      kind: row.kind,
      rowId: row.row_id,
      resource: row.resource,
      visibility: row.visibility,
    };
    const supervisor = getSupervisor();
    // The server's own workers start again with one click; a remote one is started again on its machine.
    const workers = (await supervisor.listWorkers(lab))
      .filter((w) => w.alive && !w.remote)
      .map((w) => ({ name: w.name, settings: w.settings }));
    try {
      await supervisor.stopLab(lab, idleStopReason(idleMinutes));
    } finally {
      await recordIdleStop(lab.id, { idleMinutes, workers });
    }
    stopped.push(lab.id);
  }
  return stopped;
}

/** Starts again the workers the idle watch stopped in the lab; returns their names. */
export async function startAgainAfterIdleStop(
  lab: LabInstance,
  workers: ReadonlyArray<{ name: string; settings: WorkerSettings }>,
): Promise<string[]> {
  await clearIdleStop(lab.id);
  const started: string[] = [];
  for (const worker of workers) {
    await getSupervisor().startWorker(lab, worker.settings);
    started.push(worker.name);
  }
  return started;
}

/** Watches every WATCH_EVERY_MS, once per server process (instrumentation.ts). Idempotent. */
export function startSharedLabIdleWatch(): void {
  singleton('server.shared-lab-idle-watch', watchSharedLabs, clearInterval);
}

function watchSharedLabs(): NodeJS.Timeout {
  const outage = new OutageLog('labs', "the shared labs' idle watch");
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    stopUnwatchedSharedLabs()
      .then(
        (stopped) => {
          outage.succeeded();
          if (stopped.length) console.log(`[labs] stopped the workers of unwatched shared labs: ${stopped.join(', ')}`);
        },
        (error: unknown) => outage.failed(error),
      )
      .finally(() => {
        running = false;
      });
  }, WATCH_EVERY_MS);
  timer.unref();
  return timer;
}
