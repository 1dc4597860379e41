import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Token } from '../lib/model/core/token';
import { freshResource, freshRow, grant } from '../lib/testing/fixtures';
import { listEvents } from './events';
import { fencedWrite, readProtectedRow } from './fenced-write';
import { closePool, newClient } from './pool';

after(closePool);

const HOLDERS = 20;
const WRITES_PER_HOLDER = 5;

test('20 concurrent holders with interleaved tokens: accepted tokens never go back, the highest wins', async () => {
  const row = await freshRow();
  const lab = `concurrency-${row.id}`;
  // Twenty real grants (one per resource, so they need not wait for each other), in shuffled order.
  const leases = await Promise.all(Array.from({ length: HOLDERS }, (_, i) => grant(freshResource(), `h${i}`)));
  const holders = leases.map((lease, i) => ({ name: `h${i}`, token: lease.token })).sort(() => Math.random() - 0.5);

  const sessions = holders.map(() => newClient());
  await Promise.all(sessions.map((session) => session.connect()));
  try {
    await Promise.all(
      holders.map(async (holder, i) => {
        for (let n = 1; n <= WRITES_PER_HOLDER; n++) {
          await sleep(Math.random() * 5);
          await fencedWrite(
            { rowId: row.id, value: `${holder.name}-${n}`, token: holder.token, actor: holder.name, lab },
            sessions[i],
          );
        }
      }),
    );
  } finally {
    await Promise.all(sessions.map((session) => session.end()));
  }

  const events = await listEvents({ lab });
  assert.equal(events.length, HOLDERS * WRITES_PER_HOLDER, 'every write has exactly one outcome');
  const accepted = events.filter((e) => e.kind === 'write_accepted');
  let previous = 0;
  for (const event of accepted) {
    assert.ok((event.token as Token) >= previous, `accepted token ${event.token} after ${previous}`);
    previous = event.token as Token;
  }
  for (const event of events.filter((e) => e.kind === 'write_rejected')) {
    assert.ok((event.token as Token) < (event.storedToken as Token), 'a rejected write was older than the row');
  }

  const highest = Math.max(...holders.map((h) => h.token));
  const lastAccepted = accepted.at(-1);
  const stored = await readProtectedRow(row.id);
  assert.equal(stored?.lastToken, highest);
  assert.equal(lastAccepted?.token, highest);
  assert.equal(
    stored?.value,
    lastAccepted?.detail?.value,
    'the final value is the last write accepted with the highest token',
  );
  const winner = holders.find((h) => h.token === highest)?.name;
  assert.equal(stored?.value, `${winner}-${WRITES_PER_HOLDER}`);
});
