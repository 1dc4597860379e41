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
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN fencing_events' AND pid <> pg_backend_pid()",
    );
  } finally {
    await owner.end();
  }
}
