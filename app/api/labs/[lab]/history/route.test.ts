import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { appendEvent, listEvents } from '@/db/events';
import { closeLab, createPrivateLab } from '@/db/labs';
import { closePool, getPool } from '@/db/pool';
import { toWire, type WireEvent } from '@/lib/model/core/wire';
import { fromWirePage, type WirePage } from '@/lib/model/core/wire-page';
import { sharedLab } from '@/lib/model/lab/lab-instance';
import { OWNER_COOKIE, ownerHashOf } from '@/lib/server/access';
import { labHistoryBody } from '@/lib/server/lab-history';
import { resetLabData } from '@/lib/supervisor/lab-reset';
import { GET } from './route';

/*
 * The history download as a page reads it: a hello like the live feed's, then every event after
 * ?after= exactly as the feed would carry it, page after page; refused as the feed refuses it.
 */

const LAB = 'bypass';

async function get(lab: string, query = '', cookie?: string): Promise<Response> {
  const request = new Request(`http://lab.test/api/labs/${lab}/history${query}`, {
    headers: cookie ? { cookie } : {},
  });
  return GET(request, { params: Promise.resolve({ lab }) });
}

function readLines(text: string): { hello: { database: string; firstId: number | null }; events: WireEvent[] } {
  const lines = text.split('\n');
  assert.equal(lines.at(-1), '', 'every line ends with a line break');
  const [hello, ...pages] = lines.slice(0, -1).map((line) => JSON.parse(line));
  return { hello, events: pages.flatMap((page: WirePage) => fromWirePage(page)) };
}

const write = (value: string) =>
  appendEvent(getPool(), { lab: LAB, actor: 'T', kind: 'write_sent', detail: { value } });

before(async () => {
  await resetLabData(sharedLab(LAB));
  for (const value of ['a', 'b', 'c', 'd', 'e']) await write(value);
});
after(async () => {
  await closePool();
});

test("the whole history after ?after=, each event as the live feed carries it, after the feed's hello", async () => {
  const stored = (await listEvents({ lab: LAB })).map(toWire);
  const response = await get(LAB);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /application\/x-ndjson/);
  const { hello, events } = readLines(await response.text());
  assert.equal(hello.firstId, stored[0]?.id);
  assert.equal(typeof hello.database, 'string');
  assert.deepEqual(events, stored);

  const later = readLines(await (await get(LAB, `?after=${stored[1]?.id}`)).text());
  assert.deepEqual(later.events, stored.slice(2));
});

test('a history longer than a page comes whole, in order, in several pages', async () => {
  const stored = (await listEvents({ lab: LAB })).map(toWire);
  const text = await new Response(labHistoryBody(sharedLab(LAB), 0, () => undefined, 2)).text();
  assert.equal(text.split('\n').length - 2, 3, 'five events in pages of two: three pages');
  assert.deepEqual(readLines(text).events, stored);
});

test("a malformed ?after= is refused; someone else's private lab is answered like a lab that does not exist", async () => {
  const malformed = await get(LAB, '?after=-1');
  assert.equal(malformed.status, 400);
  assert.deepEqual(await malformed.json(), {
    error: { code: 'invalid_input', message: 'after must be a whole number' },
  });
  assert.equal((await get(LAB, '?after=1e3')).status, 400);
  const missing = await get('no-such-lab');
  assert.equal(missing.status, 404);
  assert.deepEqual(await missing.json(), { error: { code: 'not_found', message: 'no lab "no-such-lab"' } });

  const secret = randomBytes(16).toString('hex');
  const lab = await createPrivateLab({
    kind: 'no-fencing',
    ownerHash: ownerHashOf(secret),
    openedFrom: `history-test-${secret.slice(0, 8)}`,
    initialValue: 'initial',
    opensPerAddress: 1_000,
    opensWindowMs: 60 * 60_000,
  });
  try {
    await appendEvent(getPool(), { lab: lab.id, actor: 'T', kind: 'write_sent', detail: { value: 'mine' } });
    const theirs = await get(lab.id);
    assert.equal(theirs.status, 404);
    // The same words as a lab that does not exist: nothing says the lab is there.
    assert.deepEqual(await theirs.json(), {
      error: { code: 'not_found', message: `no lab ${JSON.stringify(lab.id)}` },
    });
    assert.equal((await get(lab.id, '', `${OWNER_COOKIE}=${randomBytes(16).toString('hex')}`)).status, 404);
    const mine = await get(lab.id, '', `${OWNER_COOKIE}=${secret}`);
    assert.equal(mine.status, 200);
    assert.deepEqual(
      readLines(await mine.text()).events.map((e) => e.detail),
      [{ value: 'mine' }],
    );
  } finally {
    await closeLab(lab.id);
  }
});
