import 'server-only';
import type { WriteResult } from '../model/core/write-result';

/**
 * A client timeout, as many database clients have one: the write's answer is awaited `retryAfterMs`
 * at most; then the client gives up on it and `retry` sends it again (the delayed-packet labs: on a
 * new connection, with the same token, without asking whether the lease still holds, as a naive retry
 * loop does). The first attempt is not withdrawn: its bytes may still be on their way, and land later.
 */
export async function answeredOrRetried(
  first: Promise<WriteResult>,
  retryAfterMs: number | undefined,
  retry: () => Promise<WriteResult>,
): Promise<WriteResult> {
  if (retryAfterMs === undefined) return first;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timed-out'>((resolve) => {
    timer = setTimeout(() => resolve('timed-out'), retryAfterMs);
  });
  try {
    const answer = await Promise.race([first, timedOut]);
    if (answer !== 'timed-out') return answer;
  } finally {
    clearTimeout(timer);
  }
  // Given up on: whatever becomes of it (its connection ends once the held bytes go) is not awaited.
  first.catch(() => undefined);
  return retry();
}
