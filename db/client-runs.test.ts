import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { parseToken } from '../lib/model/core/token';
import { testWorkerLineUrl } from '../lib/testing/worker-line';
import { findClientRun, findClientRuns, listClientRuns, readClientRunEvents } from './client-runs';
import { appendEvent } from './events';
import { closeLab, createPrivateLab, labJoinKey } from './labs';
import { closePool, getPool, newClient } from './pool';

/*
 * The class wall's clients (issue 36, item 6; 0052_client_runs.sql): a run of a person's own program
 * is what the lab's events recorded, written by the database alone. Whose it is comes from the
 * session's role (the worker line's person), never from what the program sent; its history is the
 * lab's events from its start to its end, while the lab holds them; a worker started under its name
 * ends it as replaced, and only its own person (or the app) ends it with words; a person's loop of
 * starts fills only their own.
 */

const WHO = `client-runs-${process.pid}`;
/** The holder lib/testing/worker-line.ts issues WHO's line to. */
const LINE_HOLDER = createHash('sha256').update(`test worker line:${WHO}`).digest('hex');
const OWNER = randomBytes(32).toString('hex');

let line: pg.Client;
let lab: string;
let key: string;

before(async () => {
  lab = (
    await createPrivateLab({
      kind: 'no-fencing',
      ownerHash: OWNER,
      openedFrom: `client-runs-${randomBytes(4).toString('hex')}`,
      initialValue: 'initial',
      opensPerAddress: 12,
      opensWindowMs: 1,
    })
  ).id;
  key = (await labJoinKey(lab)) as string;
  line = newClient(await testWorkerLineUrl({ who: WHO, lab }));
  await line.connect();
});
after(async () => {
  await line.end();
  await closeLab(lab).catch(() => undefined);
  await closePool();
});

async function joinAs(name: string): Promise<{ lab: string; name: string; instance: string }> {
  const me = { lab, name, instance: randomBytes(12).toString('hex') };
  const { rows } = await line.query<{ refusal: string | null }>('SELECT * FROM worker_join($1, $2, $3, $4, $5)', [
    lab,
    name,
    me.instance,
    JSON.stringify({ name }),
    key,
  ]);
  assert.equal(rows[0]?.refusal ?? null, null);
  return me;
}

const runsOfLab = async () => (await listClientRuns({ limit: 1000 })).filter((run) => run.lab === lab);

test("a program run through a person's line is theirs; its history is the lab's events from its start to its end, every lane's, until a reset", async () => {
  const me = await joinAs('A');
  const detail = { workerId: 'A', remote: true, exec: 'python3 my_client.py' };
  await appendEvent(line, { lab, actor: 'A', kind: 'worker_started', detail }, { as: me });
  const [run] = await runsOfLab();
  assert.ok(run, 'the start made a run');
  assert.equal(run.program, 'python3 my_client.py');
  assert.equal(run.holder, LINE_HOLDER, "the line's person, not the lab's owner nor anything the program sent");
  assert.equal(run.ended, undefined);
  assert.equal(run.beating, true);

  // Our own worker B writes meanwhile (the app's role): the run's history holds the lab's events, B's too.
  await appendEvent(getPool(), { lab, actor: 'B', kind: 'write_accepted', token: parseToken(7), outcome: 'accepted' });
  await appendEvent(
    line,
    { lab, actor: 'A', kind: 'worker_stopped', detail: { ...detail, reason: 'your program exited with code 0' } },
    { as: me },
  );
  // After its end: not in its history.
  await appendEvent(getPool(), { lab, actor: 'B', kind: 'write_accepted', token: parseToken(8), outcome: 'accepted' });

  const ended = await findClientRun(run.id);
  assert.equal(ended?.ended?.kind, 'worker_stopped');
  assert.equal(ended?.ended?.reason, 'your program exited with code 0');
  assert.equal(ended?.kept, true);
  const history = await readClientRunEvents(ended as NonNullable<typeof ended>);
  assert.deepEqual(
    history.map((event) => [event.actor, event.kind, event.token]),
    [
      ['A', 'worker_started', undefined],
      ['B', 'write_accepted', 7],
      ['A', 'worker_stopped', undefined],
    ],
  );
  const own = await readClientRunEvents(ended as NonNullable<typeof ended>, { actor: 'A' });
  assert.deepEqual(
    own.map((event) => event.kind),
    ['worker_started', 'worker_stopped'],
  );

  // A reset clears the lab's events: the run says so, and has no history to replay.
  await getPool().query('DELETE FROM events WHERE lab = $1', [lab]);
  assert.equal((await findClientRun(run.id))?.kept, false);
});

test('our worker started under the name replaces an open run, its own person starting again restarts it, and a start with no program makes none', async () => {
  const me = await joinAs('C');
  await appendEvent(line, { lab, actor: 'C', kind: 'worker_started', detail: { exec: 'bash worker.sh' } }, { as: me });
  await appendEvent(line, { lab, actor: 'C', kind: 'worker_started', detail: { exec: 'bash worker.sh' } }, { as: me });
  await appendEvent(getPool(), { lab, actor: 'C', kind: 'worker_started', detail: { workerId: 'C' } });
  const runs = (await runsOfLab()).filter((run) => run.actor === 'C');
  assert.deepEqual(
    runs.map((run) => run.ended?.kind),
    ['replaced', 'restarted'],
    'newest first: our worker is no client run',
  );
});

test("only a run's own person ends it with words: another line that took the name replaces it", async () => {
  const me = await joinAs('F');
  await appendEvent(
    line,
    { lab, actor: 'F', kind: 'worker_started', detail: { remote: true, exec: 'python3 mine.py' } },
    { as: me },
  );
  // Another person's line, joined under F once the name was free, says F stopped, in its own words.
  const other = newClient(await testWorkerLineUrl({ who: `${WHO}-other`, lab }));
  await other.connect();
  try {
    const them = { lab, name: 'F', instance: randomBytes(12).toString('hex') };
    // F's runner went quiet (its machine asleep): the name is free to join under.
    await line.query('SELECT worker_mark_stopped($1, $2, $3)', [me.lab, me.name, me.instance]);
    const { rows } = await other.query<{ refusal: string | null }>('SELECT * FROM worker_join($1, $2, $3, $4, $5)', [
      lab,
      'F',
      them.instance,
      JSON.stringify({ name: 'F' }),
      key,
    ]);
    assert.equal(rows[0]?.refusal ?? null, null);
    await appendEvent(
      other,
      { lab, actor: 'F', kind: 'worker_stopped', detail: { reason: 'it wrote garbage' } },
      { as: them },
    );
  } finally {
    await other.end();
  }
  const f = (await runsOfLab()).find((run) => run.actor === 'F');
  assert.equal(f?.holder, LINE_HOLDER);
  assert.equal(f?.ended?.kind, 'replaced');
  assert.equal(f?.ended?.reason, '', 'none of the other line’s words');
});

test("a private lab's own server-side start is its owner's; a person's loop of starts keeps only their newest 20", async () => {
  await appendEvent(getPool(), { lab, actor: 'D', kind: 'worker_started', detail: { exec: 'node client.mjs' } });
  const d = (await runsOfLab()).find((run) => run.actor === 'D');
  assert.equal(d?.holder, OWNER);

  const me = await joinAs('E');
  for (let i = 0; i < 25; i++) {
    await appendEvent(
      line,
      { lab, actor: 'E', kind: 'worker_started', detail: { exec: `python3 loop${i}.py` } },
      { as: me },
    );
  }
  const mine = await listClientRuns({ holder: LINE_HOLDER, limit: 1000 });
  assert.equal(mine.length, 20);
  assert.equal(mine[0]?.program, 'python3 loop24.py');
  assert.ok(
    (await runsOfLab()).some((run) => run.holder === OWNER),
    "another person's run is still there",
  );
  // A wall's recheck reads the runs it shows in one query: those that exist, in id order, as one by one.
  const [newest, older] = mine;
  const both = await findClientRuns([newest?.id ?? 0, 9_000_000_000, older?.id ?? 0]);
  assert.deepEqual(
    both.map((run) => run.id),
    [older?.id, newest?.id],
  );
  assert.deepEqual(
    both.map((run) => run.program),
    [older?.program, newest?.program],
  );
  assert.deepEqual(await findClientRuns([]), []);
});

test('the trigger that writes the runs is the one its file makes (a changed file needs a migration that drops it)', async () => {
  const { rows } = await getPool().query<{ def: string }>(
    "SELECT pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE tgname = 'client_runs_record' AND tgrelid = 'events'::regclass",
  );
  assert.equal(
    rows[0]?.def,
    "CREATE TRIGGER client_runs_record AFTER INSERT ON public.events FOR EACH ROW WHEN ((new.kind = ANY (ARRAY['worker_started'::text, 'worker_restarted'::text, 'worker_stopped'::text, 'worker_crashed'::text]))) EXECUTE FUNCTION client_runs_record()",
  );
});
