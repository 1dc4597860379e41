import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { fencedWrite } from '../db/fenced-write';
import { readLabGeneration } from '../db/lab-generation';
import { createPrivateLab } from '../db/labs';
import { acquireLease, releaseLease, renewLease } from '../db/leases';
import { newClient } from '../db/pool';
import { PAUSE_FENCED } from '../lib/labs/traits';
import type { BenchSizes } from './sizes';
import { type Figure, percentile } from './stats';

/*
 * Lease operations per second with many busy labs at once: each lab has one holder of its own, on
 * a connection of its own, that acquires its lab's lease, then renews it and writes through the
 * fenced write (each operation commits with its event), and gives the lease up and takes it again every
 * CYCLE_OPS operations. Labs share nothing but the database: what one lab waits on, the others
 * should not. Each holder sends what a worker sends: the generation of the lab it joined, checked
 * in every statement (db/lab-generation.ts). Rounds are timed; the figure is the total over every lab.
 */

const CYCLE_OPS = 20;
const TTL_MS = 10_000;

export async function benchBusyLabs(url: string, size: BenchSizes['busyLabs']): Promise<Figure[]> {
  const { labs, seconds } = size;
  // One owner and one address per lab, as 30 trainees' laptops would be: within every opening limit.
  const created = await Promise.all(
    Array.from({ length: labs }, (_, i) =>
      createPrivateLab({
        kind: PAUSE_FENCED,
        ownerHash: randomBytes(32).toString('hex'),
        openedFrom: `bench-${i}`,
        initialValue: 'initial',
        opensPerAddress: 1,
        opensWindowMs: 1,
      }),
    ),
  );
  const sessions = await Promise.all(
    created.map(async () => {
      const session = newClient(url);
      await session.connect();
      return session;
    }),
  );
  const latenciesMs: number[] = [];
  const deadline = Date.now() + seconds * 1000;
  try {
    const counts = await Promise.all(
      created.map((lab, i) => holdBusily(lab, sessions[i] as pg.Client, deadline, latenciesMs)),
    );
    const total = counts.reduce((a, b) => a + b, 0);
    const perSecond = total / seconds;
    return [
      {
        name: `${labs} busy labs, one holder each: lease operations per second`,
        value: `${Math.round(perSecond)}/s`,
        goal: 'labs do not wait on each other (see bench/README.md)',
        met: undefined,
        note: `${total} operations in ${seconds} s; per operation p50 ${percentile(latenciesMs, 50).toFixed(1)} ms, p99 ${percentile(latenciesMs, 99).toFixed(1)} ms`,
      },
    ];
  } finally {
    await Promise.all(sessions.map((s) => s.end().catch(() => undefined)));
  }
}

type BenchLab = Awaited<ReturnType<typeof createPrivateLab>>;

async function holdBusily(lab: BenchLab, session: pg.Client, deadline: number, latenciesMs: number[]) {
  const holder = `bench-${lab.id}`;
  const generation = await readLabGeneration(lab.id, session);
  const where = { resource: lab.resource, holder, ttlMs: TTL_MS, lab: lab.id, generation };
  let ops = 0;
  const timed = async <T>(operation: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await operation();
    latenciesMs.push(performance.now() - started);
    ops++;
    return result;
  };
  while (Date.now() < deadline) {
    const granted = await timed(() => acquireLease(where, session));
    if (granted.outcome !== 'granted') throw new Error(`${lab.id}: its only holder was refused its lease`);
    const { token } = granted.lease;
    for (let n = 1; n < CYCLE_OPS && Date.now() < deadline; n++) {
      if (n % 3 === 0) {
        await timed(() => renewLease({ ...where, token }, session));
      } else {
        await timed(() =>
          fencedWrite({ rowId: lab.rowId, value: `v${ops}`, token, actor: holder, lab: lab.id, generation }, session),
        );
      }
    }
    await timed(() => releaseLease({ ...where, token }, session));
  }
  return ops;
}
