import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { WORKER_BOUNDS } from '../lib/model/core/input-bounds';
import { type Me, openPrivateLabOnLine } from '../lib/testing/private-lab-line';
import { closePool } from './pool';

/*
 * Issue 33 item 7, review: a worker's events are limited per worker NAME per lab (fl_take_event_budget),
 * and a new name starts with a full burst. worker_join has no rate of its own, and a worker marked
 * stopped takes no place among the lab's 16: so one connection of one line joins under a fresh name,
 * spends that name's burst at the largest detail, marks itself stopped, and goes again. Each round
 * also left a remote_workers row behind (one per name, never reused); a line now joins a lab under at
 * most worker_line_names_per_lab names, so it goes round those.
 *
 * Expected: what one line records in a second is bounded by the lab's 16 workers' rates, not by how
 * fast it can think of names.
 */

const WINDOW_MS = 2_000;
const LAB_WORKERS = 16;
const DETAIL = { value: 'x'.repeat(WORKER_BOUNDS.event_detail_max_bytes - 100) };

let at: Awaited<ReturnType<typeof openPrivateLabOnLine>>;

before(async () => {
  at = await openPrivateLabOnLine('volume-names');
});
after(async () => {
  await at.close();
  await closePool();
});

test("one line's events in a second are bounded by the lab's workers' rates, however many names it joins under", async () => {
  const { worker, owner, lab } = at;
  const until = Date.now() + WINDOW_MS;
  let names = 0;
  while (Date.now() < until) {
    // A line joins a lab under at most worker_line_names_per_lab names (then refused): it goes round them.
    const me: Me = await at.join(`N${names % WORKER_BOUNDS.worker_line_names_per_lab}`);
    names++;
    // The name's whole burst in one round trip (the simple protocol runs the statements in turn).
    const call = `SELECT worker_record_event(${[me.lab, me.name, me.instance, 'write_sent']
      .map((v) => worker.escapeLiteral(v))
      .join(', ')}, NULL, ${worker.escapeLiteral(JSON.stringify(DETAIL))}::jsonb);`;
    // Refused past the budget (FL012): the whole round is left out, and the next name tries again.
    await worker.query(call.repeat(WORKER_BOUNDS.worker_event_burst)).catch((error: { code?: string }) => {
      if (error.code !== 'FL012') throw error;
    });
    await worker.query('SELECT worker_mark_stopped($1, $2, $3)', [me.lab, me.name, me.instance]);
  }
  const { rows } = await owner.query<{ events: string; bytes: string; rows_left: string }>(
    `SELECT count(*) AS events, sum(octet_length(detail::text)) AS bytes,
            (SELECT count(*) FROM remote_workers WHERE lab = $1) AS rows_left
       FROM events WHERE lab = $1 AND kind = 'write_sent'`,
    [lab],
  );
  const events = Number(rows[0]?.events);
  const bound =
    LAB_WORKERS * (WORKER_BOUNDS.worker_event_burst + (WORKER_BOUNDS.worker_events_per_second * WINDOW_MS) / 1000);
  assert.ok(
    events <= bound,
    `one connection recorded ${events} events (${(Number(rows[0]?.bytes) / 1024 / 1024).toFixed(1)} MB of detail) ` +
      `in ${WINDOW_MS} ms under ${names} names, past ${bound} (16 workers at their rate); ` +
      `${rows[0]?.rows_left} remote_workers rows left in the lab`,
  );
});
