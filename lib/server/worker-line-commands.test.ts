import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pg from 'pg';
import { setRemoteWorkersOpen } from '../../db/lab-doors';
import { labJoinKey } from '../../db/labs';
import { closePool } from '../../db/pool';
import { newOwnerSecret } from './access';
import * as commands from './lab-commands';
import { issueMyWorkerLine } from './worker-line-commands';

/*
 * A person's worker line as a lab's page issues it (issue 33): a private lab's owner gets a command
 * with the lab's join key and a URL that logs in; nobody else gets one for that lab; a shared lab's
 * watcher gets one only while its trainer lets remote workers in; a delayed-packet lab has none. The
 * `--exec` form names the lane A in a private lab, and leaves the name to the person in a shared one;
 * the Python runner's form (clients/python/runner.py) is the same, with the program after `--`.
 */

const ALICE = newOwnerSecret();
const BOB = newOwnerSecret();
const caller = (ownerSecret: string, address: string) => ({ credentials: { ownerSecret }, ownerSecret, address });

after(async () => {
  await setRemoteWorkersOpen('no-fencing', false);
  await closePool();
});

test("a private lab's owner gets a command with the lab's join key, and its URL logs in as a line of their own", async () => {
  const opened = await commands.openPrivateLab({ kind: 'fenced' }, { ownerSecret: ALICE, address: '198.20.0.1' });
  assert.ok(opened.ok, JSON.stringify(opened));
  const lab = opened.data.id;
  const issued = await issueMyWorkerLine({ lab }, caller(ALICE, '198.20.0.1'));
  assert.ok(issued.ok, JSON.stringify(issued));
  const key = await labJoinKey(lab);
  assert.match(
    issued.data.command,
    new RegExp(
      `^npm run worker -- --db postgres://fencing_line_\\w+:\\S+ --lab ${lab} --join-key ${key} --name <your name>$`,
    ),
  );
  // Its own program runs as A, the lane the Your client story freezes.
  assert.equal(
    issued.data.execCommand,
    `${issued.data.command.replace(/<your name>$/, 'A')} --exec "python3 my_client.py"`,
  );
  // The same with the runner in Python, the program after its --.
  assert.equal(
    issued.data.pythonCommand,
    `${issued.data.command.replace(/^npm run worker -- /, 'python3 runner.py ').replace(/<your name>$/, 'A')} -- python3 my_client.py`,
  );
  const url = /--db (\S+)/.exec(issued.data.command)?.[1] as string;
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    assert.equal((await db.query('SELECT current_user AS who')).rows[0]?.who, issued.data.role);
  } finally {
    await db.end();
  }

  const bob = await issueMyWorkerLine({ lab }, caller(BOB, '198.20.0.2'));
  assert.deepEqual(bob, { ok: false, error: { code: 'invalid_input', message: `no lab "${lab}"` } });
});

test("a shared lab's watcher gets a line only while the trainer lets remote workers in; a delayed-packet lab has none", async () => {
  await setRemoteWorkersOpen('no-fencing', false);
  const closed = await issueMyWorkerLine({ lab: 'no-fencing' }, caller(BOB, '198.20.0.3'));
  assert.equal(!closed.ok && closed.error.code, 'forbidden');
  assert.match(!closed.ok ? closed.error.message : '', /takes no remote workers now: your trainer opens it to them/);
  await setRemoteWorkersOpen('no-fencing', true);
  const open = await issueMyWorkerLine({ lab: 'no-fencing' }, caller(BOB, '198.20.0.3'));
  assert.ok(open.ok, JSON.stringify(open));
  assert.match(open.data.command, /--lab no-fencing --name <your name>$/);
  // The trainer keeps the names A and B in a shared lab (worker_join: reserved_name): a program of
  // one's own runs under one's own name there too.
  assert.match(open.data.execCommand, /--lab no-fencing --name <your name> --exec "python3 my_client\.py"$/);
  assert.match(
    open.data.pythonCommand,
    /^python3 runner\.py --db \S+ --lab no-fencing --name <your name> -- python3 my_client\.py$/,
  );
  const relay = await issueMyWorkerLine({ lab: 'delayed-packet' }, caller(BOB, '198.20.0.3'));
  assert.equal(!relay.ok && relay.error.code, 'invalid_input');
  const junk = await issueMyWorkerLine({ lab: 'fenced', extra: 1 }, caller(BOB, '198.20.0.3'));
  assert.equal(!junk.ok && junk.error.code, 'invalid_input');
});
