import { CLIENT_RUNS_CHANNEL, EVENTS_CHANNEL, GUARD_ATTEMPTS_CHANNEL } from '../../db/notification-notes';
import { newClient } from '../../db/pool';

/** The server's one LISTEN connection's statements, in its order (db/event-feed.ts): pg_stat_activity shows its last. */
const LISTENS = [EVENTS_CHANNEL, GUARD_ATTEMPTS_CHANNEL, CLIENT_RUNS_CHANNEL].map((channel) => `LISTEN ${channel}`);

/**
 * Ends the server's LISTEN sessions (so that a test process exits, or to break its feed on purpose).
 * As the owner: the app role the pools run as may not end the owner's other sessions.
 */
export async function endListenSessions(): Promise<void> {
  const owner = newClient();
  await owner.connect();
  try {
    await owner.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = ANY($1) AND pid <> pg_backend_pid()',
      [LISTENS],
    );
  } finally {
    await owner.end();
  }
}
