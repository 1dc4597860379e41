/** Runs once when the Next server starts: the server-wide background jobs. */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { startHistoryPruner } = await import('./lib/jobs/history-pruner');
  startHistoryPruner();
  // Worker sessions over their time budget (a runaway query, a transaction left open) are ended.
  const { startWorkerSessionWatchdog } = await import('./lib/jobs/worker-session-watchdog');
  startWorkerSessionWatchdog();
  // A shared lab nobody watches or drives stops its workers (lib/server/idle-shared-labs.ts).
  const { startSharedLabIdleWatch } = await import('./lib/server/idle-shared-labs');
  startSharedLabIdleWatch();
  // Workers a previous run of this server left behind when it died ended with it: say so.
  const { recordOrphanedWorkersOnceUp } = await import('./lib/jobs/orphaned-workers');
  recordOrphanedWorkersOnceUp();
  // A sweep that died with a previous run of a server (or a command line) left its run labs open: close them.
  const { closeOrphanedSweepLabsOnceUp } = await import('./lib/jobs/orphaned-sweep-labs');
  closeOrphanedSweepLabsOnceUp();
  // This server's share of the room's job queue: guard attacks any app server on the database runs.
  const { getJobRunner } = await import('./lib/server/job-runner');
  getJobRunner();
}
