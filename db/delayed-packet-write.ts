import 'server-only';
import { parseStoredToken, type Token } from '../lib/model/core/token';
import type { WriteResult } from '../lib/model/core/write-result';
import { type Session, toFencingError } from './pool';
import { identityParams, type WorkerIdentity } from './worker-identity';

/**
 * The delayed-packet labs' write (db/functions/fl_delayed_packet_write.sql): fenced (fl_may_write's
 * `last_token <= token`, in the write's own statement) in `delayed-packet`, with no check in
 * `delayed-packet-unfenced`, as lab_kind_writes says. Its text
 * names worker_delayed_packet_write, which is what the lab's packet relay holds at (DELAYED_WRITE_MARKER).
 * `attempt` says whether it is the first send or the client's retry after a timeout.
 */
export async function writeDelayedPacket(
  write: { as: WorkerIdentity; rowId: number; value: string; token: Token; attempt: 'first' | 'retry' },
  session: Session,
): Promise<WriteResult> {
  const { rows } = await session
    .query<{ outcome: string; stored_token: string | null }>(
      'SELECT * FROM worker_delayed_packet_write($1, $2, $3, $4, $5, $6)',
      [...identityParams(write.as), write.value, write.token, write.attempt],
    )
    .catch((error: unknown) => {
      throw toFencingError(error);
    });
  const row = rows[0];
  if (row?.outcome === 'accepted') {
    return { outcome: 'accepted', rowId: write.rowId, value: write.value, token: write.token };
  }
  return {
    outcome: 'stale',
    rowId: write.rowId,
    presentedToken: write.token,
    storedToken: parseStoredToken(row?.stored_token ?? '0'),
  };
}
