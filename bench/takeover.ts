import { setTimeout as sleep } from 'node:timers/promises';
import { listEvents } from '../db/events';
import { readLease } from '../db/leases';
import { PAUSE_FENCED } from '../lib/labs/traits';
import { sharedLab } from '../lib/model/lab/lab-instance';
import { getSupervisor } from '../lib/supervisor/supervisor';
import type { BenchSizes } from './sizes';
import { type Figure, percentile } from './stats';

/*
 * Takeover latency: from the moment a frozen holder's lease expires (by the database's clock) to
 * the next holder's grant (by the same clock). Two real workers; the holder is frozen again and
 * again. A waiting worker retries its acquire every 50 ms.
 */

const LAB = sharedLab(PAUSE_FENCED);
const SETTINGS = { leaseTtlMs: 1_000, renewEveryMs: 300, writeEveryMs: 300 };

export async function benchTakeover(size: BenchSizes['takeover']): Promise<Figure[]> {
  const supervisor = getSupervisor();
  await supervisor.resetLab(LAB);
  await supervisor.startWorker(LAB, { name: 'A', ...SETTINGS });
  await supervisor.startWorker(LAB, { name: 'B', ...SETTINGS });
  const latencies: number[] = [];
  try {
    for (let i = 0; i < size.takeovers; i++) {
      const lease = await waitForLease();
      await supervisor.pause(LAB, lease.holder, { mode: 'until-resumed' });
      const grant = await waitForEvent(
        (e) => e.kind === 'lease_acquired' && e.actor !== lease.holder && (e.token ?? 0) > lease.token,
      );
      const expired = (await listEvents({ lab: LAB.id })).find(
        (e) => e.kind === 'lease_expired' && e.token === lease.token,
      );
      const expiresAt = Date.parse(String(expired?.detail?.expiresAt));
      if (!Number.isNaN(expiresAt)) latencies.push(grant.at.getTime() - expiresAt);
      await supervisor.resume(LAB, lease.holder);
      await sleep(200);
    }
  } finally {
    await supervisor.resetLab(LAB);
  }
  const p50 = percentile(latencies, 50);
  const max = Math.max(...latencies);
  return [
    {
      name: 'takeover, p50',
      value: `${p50.toFixed(0)} ms`,
      goal: '≤ 150 ms',
      met: p50 <= 150,
      note: `${latencies.length} takeovers`,
    },
    { name: 'takeover, max', value: `${max.toFixed(0)} ms`, goal: '≤ 150 ms', met: max <= 150 },
  ];
}

async function waitForLease() {
  for (;;) {
    const lease = await readLease(LAB.resource);
    if (lease && lease.expiresAt.getTime() > Date.now() + 200) return lease;
    await sleep(20);
  }
}

async function waitForEvent(match: (e: Awaited<ReturnType<typeof listEvents>>[number]) => boolean) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const found = (await listEvents({ lab: LAB.id })).find(match);
    if (found) return found;
    await sleep(10);
  }
  throw new Error('no takeover within 10 s');
}
