import 'server-only';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureProtectedRow, fencedWrite, readProtectedRow } from '../../db/guard';
import { acquireLease, type Lease } from '../../db/leases';
import type { Session } from '../../db/pool';
import type { WriteResult } from '../model/write-result';
import type { ScenarioOutcome, StoryLine, StoryPrinter } from './story';

/*
 * The seed's pause scenario, headless: two holders, each on its own database session as two
 * separate processes would be. A takes the lease and writes; A "pauses" (does nothing at all)
 * until its lease has expired by the database's clock; B takes over with a newer token and writes;
 * A resumes and writes with its old token. Safe means A's late write is rejected as stale and
 * B's value is intact.
 */

export const PAUSE_ROW_ID = 1;
export const PAUSE_RESOURCE = 'row-1';
const LEASE_TTL_MS = 1_500;
const ACQUIRE_RETRY_MS = 50;
const ACQUIRE_GIVE_UP_MS = 30_000;

export async function runPauseScenario(
  sessions: { a: Session; b: Session },
  print: StoryPrinter,
): Promise<ScenarioOutcome> {
  const lines: StoryLine[] = [];
  const say = (line: StoryLine) => {
    lines.push(line);
    print(line);
  };
  await ensureProtectedRow({ id: PAUSE_ROW_ID, value: 'initial' });

  const leaseA = await acquireWhenFree('A', sessions.a);
  const firstWrite = await fencedWrite(
    { rowId: PAUSE_ROW_ID, value: 'A-1', token: leaseA.token, actor: 'A' },
    sessions.a,
  );
  say({
    step: 'first-holder-writes',
    text: `term ${leaseA.token} token ${leaseA.token} -> write ${outcomeWord(firstWrite)} (A wrote "A-1")`,
    holder: 'A',
    token: leaseA.token,
    expiresAt: leaseA.expiresAt.toISOString(),
    outcome: firstWrite.outcome,
  });

  // A is frozen from here on: it sends nothing while B waits for the lease to expire on the DB's clock.
  const leaseB = await acquireWhenFree('B', sessions.b);
  const secondWrite = await fencedWrite(
    { rowId: PAUSE_ROW_ID, value: 'B-1', token: leaseB.token, actor: 'B' },
    sessions.b,
  );
  say({
    step: 'takeover-writes',
    text: `lease expires, term ${leaseB.token} token ${leaseB.token} -> write ${outcomeWord(secondWrite)} (B wrote "B-1")`,
    holder: 'B',
    token: leaseB.token,
    previousExpiresAt: leaseA.expiresAt.toISOString(),
    acquiredAt: leaseB.acquiredAt.toISOString(),
    outcome: secondWrite.outcome,
  });

  const lateWrite = await fencedWrite(
    { rowId: PAUSE_ROW_ID, value: 'A-2', token: leaseA.token, actor: 'A' },
    sessions.a,
  );
  say({
    step: 'old-holder-resumes',
    text: `old holder resumes -> write token ${leaseA.token} -> ${
      lateWrite.outcome === 'stale'
        ? `rejected (stale: row holds token ${lateWrite.storedToken})`
        : 'accepted (the newer value was overwritten!)'
    }`,
    holder: 'A',
    token: leaseA.token,
    outcome: lateWrite.outcome,
    ...(lateWrite.outcome === 'stale' ? { storedToken: lateWrite.storedToken } : {}),
  });

  const final = await readProtectedRow(PAUSE_ROW_ID, sessions.b);
  say({
    step: 'final',
    text: `final: row ${PAUSE_ROW_ID} value ${JSON.stringify(final?.value)} last_token ${final?.lastToken}`,
    rowId: PAUSE_ROW_ID,
    value: final?.value,
    lastToken: final?.lastToken,
  });

  const safe =
    firstWrite.outcome === 'accepted' &&
    secondWrite.outcome === 'accepted' &&
    lateWrite.outcome === 'stale' &&
    final?.value === 'B-1' &&
    final.lastToken === leaseB.token;
  const verdict = safe
    ? `safe: the stale write with token ${leaseA.token} was rejected and B's value (token ${leaseB.token}) is intact`
    : `UNSAFE: expected A's late write to be rejected and row ${PAUSE_ROW_ID} to keep "B-1" with token ${leaseB.token}`;
  say({ step: 'verdict', text: verdict, safe });
  return { safe, verdict, lines };
}

/** Retries until the lease is free or expired by the database's clock, as a lease client does. */
async function acquireWhenFree(holder: string, session: Session): Promise<Lease> {
  const deadline = Date.now() + ACQUIRE_GIVE_UP_MS;
  for (;;) {
    const result = await acquireLease({ resource: PAUSE_RESOURCE, holder, ttlMs: LEASE_TTL_MS }, session);
    if (result.outcome === 'granted') return result.lease;
    if (Date.now() > deadline) {
      throw new Error(
        `${holder} could not get the lease on ${PAUSE_RESOURCE} within ${ACQUIRE_GIVE_UP_MS / 1000} s: ` +
          `${result.heldBy.holder} holds it with token ${result.heldBy.token} until ${result.heldBy.expiresAt.toISOString()}`,
      );
    }
    await sleep(ACQUIRE_RETRY_MS);
  }
}

function outcomeWord(result: WriteResult): string {
  return result.outcome === 'accepted' ? 'accepted' : `rejected (stale: row holds token ${result.storedToken})`;
}
