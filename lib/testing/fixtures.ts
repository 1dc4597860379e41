import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { msUntil } from '../../db/database-clock';
import { createProtectedRow, type ProtectedRow } from '../../db/fenced-write';
import { acquireLease, type Lease } from '../../db/leases';
import type { Session } from '../../db/pool';

/** The lab the db/ tests' leases, writes and events belong to: every caller names its lab. */
export const TEST_LAB = 'tests';

/** A resource name no other test uses, so test files can share one database. */
export function freshResource(label = 'test'): string {
  return `${label}-${randomUUID().slice(0, 8)}`;
}

export function freshRow(value = 'initial'): Promise<ProtectedRow> {
  return createProtectedRow({ value });
}

export async function grant(resource: string, holder: string, ttlMs = 300, session?: Session): Promise<Lease> {
  const result = await acquireLease({ lab: TEST_LAB, resource, holder, ttlMs }, session);
  assert.equal(result.outcome, 'granted', `${holder} should get the lease on ${resource}`);
  return (result as { lease: Lease }).lease;
}

/** Waits until the lease has expired by the database's clock (not this process's). */
export async function waitForExpiry(lease: Lease): Promise<void> {
  for (;;) {
    const remainingMs = await msUntil(lease.expiresAt);
    if (remainingMs <= 0) return;
    await sleep(Math.max(5, Math.ceil(remainingMs)));
  }
}
