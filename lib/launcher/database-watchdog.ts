import { setTimeout as sleep } from 'node:timers/promises';
import { writeFileAtomically } from './atomic-file';
import type { EmbeddedCluster } from './embedded-postgres';
import { RESTART_STABLE_MS, restartDelayMs } from './restart-backoff';

/** What the launcher tells the app about its database (read by `/api/health`). */
export type DatabaseState = { state: 'up' | 'restarting'; since: string };

/**
 * Watches the embedded PostgreSQL the launcher owns. When it exits unexpectedly (a `kill -9`, an
 * out-of-memory kill), it is started again on the same data directory and port, with back-off
 * (0.5 s up to 5 s) for as long as the launcher runs. One line when it goes, one when it is back.
 * `stop()` ends the watch and waits for a restart in progress, so that shutdown never races it.
 */
export function watchDatabase(
  cluster: EmbeddedCluster,
  options: { say: (line: string) => void; stateFile: string },
): { stop(): Promise<void> } {
  let stopped = false;
  const wake = new AbortController();

  const publish = (state: DatabaseState['state']) =>
    writeFileAtomically(
      options.stateFile,
      JSON.stringify({ state, since: new Date().toISOString() } satisfies DatabaseState),
    ).catch(() => undefined); // the state file is a hint for the app; the watchdog goes on without it

  const loop = (async () => {
    await publish('up');
    let attempt = 0;
    let upSince = Date.now();
    for (;;) {
      await Promise.race([cluster.exited(), abortion(wake.signal)]);
      if (stopped) return;
      const lostAt = Date.now();
      if (lostAt - upSince >= RESTART_STABLE_MS) attempt = 0;
      options.say(
        `PostgreSQL ${cluster.postmasterPid} exited unexpectedly: restarting it on 127.0.0.1:${cluster.port}`,
      );
      await publish('restarting');
      let lastReason = '';
      for (;;) {
        // Woken early (stop or a nudge): the loop checks why.
        await sleep(restartDelayMs(attempt++), undefined, { signal: wake.signal }).catch(() => undefined);
        if (stopped) return;
        try {
          await cluster.restart();
          break;
        } catch (error) {
          // Still in the way (a backend of the dead server, the port): the back-off retries it. Why,
          // said once, and again only when the reason changes.
          const reason = error instanceof Error ? error.message : String(error ?? 'it exited at once');
          if (reason !== lastReason) options.say(`PostgreSQL could not start yet (${reason}); trying again`);
          lastReason = reason;
        }
      }
      upSince = Date.now();
      options.say(
        `PostgreSQL ${cluster.postmasterPid} is back on 127.0.0.1:${cluster.port} (${((upSince - lostAt) / 1000).toFixed(1)} s after the crash)`,
      );
      await publish('up');
    }
  })();

  return {
    async stop() {
      stopped = true;
      wake.abort();
      // Stopping: the loop's last failure was said when it happened.
      await loop.catch(() => undefined);
    },
  };
}

function abortion(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
