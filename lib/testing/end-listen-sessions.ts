import { newClient } from '../../db/pool';

/**
 * Ends the server's LISTEN sessions (so that a test process exits, or to break its feed on purpose).
 * As the owner: the app role the pools run as may not end the owner's other sessions.
 */
export async function endListenSessions(): Promise<void> {
  const owner = newClient();
  await owner.connect();
  try {
    await owner.query(
      // The server's one LISTEN connection listens on fencing_events, then fencing_guard_attempts (db/event-feed.ts):
      // pg_stat_activity shows its last statement.
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query IN ('LISTEN fencing_events', 'LISTEN fencing_guard_attempts') AND pid <> pg_backend_pid()",
    );
  } finally {
    await owner.end();
  }
}
