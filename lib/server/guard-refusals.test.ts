import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { closePool, getPool } from '../../db/pool';
import { getSupervisor } from '../supervisor/supervisor';
import { newOwnerSecret } from './access';
import { submitGuard } from './guard-commands';
import * as commands from './lab-commands';

/*
 * A trainee's refused guards, through the server action: who may submit is checked before the
 * statement is read (a statement that made the parser throw was answered "internal" to anyone, no
 * cookie needed), the parser failing is a refusal in words, the same refused statement is kept once,
 * and refusals are limited per person (300 of ~2 kB were stored in 3 s).
 */

const opened: { lab: string; owner: { ownerSecret: string } }[] = [];
let addresses = 0;

async function yourGuardLab() {
  const owner = { ownerSecret: newOwnerSecret() };
  addresses += 1;
  const result = await commands.openPrivateLab({ kind: 'your-guard' }, { ...owner, address: `198.19.0.${addresses}` });
  assert.ok(result.ok, JSON.stringify(result));
  opened.push({ lab: result.data.id, owner });
  return { lab: result.data.id, owner, address: `198.19.0.${addresses}` };
}

async function storedAttempts(lab: string): Promise<number> {
  const { rows } = await getPool().query<{ n: string }>('SELECT count(*) AS n FROM guard_attempts WHERE lab = $1', [
    lab,
  ]);
  return Number(rows[0]?.n);
}

after(async () => {
  for (const { lab, owner } of opened) await commands.closePrivateLab({ lab }, owner);
  await getSupervisor().shutdown();
  await closePool();
});

const ZERO = 'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3 AND last_token <= $0';

test('a statement the parser chokes on: refused in words to its owner, and not read at all for anyone else', async () => {
  const { lab, owner, address } = await yourGuardLab();
  const stranger = await submitGuard({ lab, name: 'Mallory', statement: ZERO }, {}, address);
  assert.equal(stranger.ok, false);
  assert.notEqual(stranger.ok ? '' : stranger.error.code, 'internal');
  assert.equal(await storedAttempts(lab), 0, "a stranger's statement is not stored");

  const mine = await submitGuard({ lab, name: 'Ada', statement: ZERO }, owner, address);
  assert.ok(mine.ok, JSON.stringify(mine));
  assert.equal(mine.data.outcome, 'refused');
  assert.match(mine.data.headline, /^refused before it ran: PostgreSQL's parser could not read it/);
});

test('the same refused statement is kept once, however often it is submitted', async () => {
  const { lab, owner, address } = await yourGuardLab();
  const typo = 'UPDATE guarded_row SET value = $1 WHERE last_tokn <= $2';
  const ids = new Set<number>();
  for (let i = 0; i < 3; i++) {
    const result = await submitGuard({ lab, name: 'Ada', statement: typo }, owner, address);
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.data.outcome, 'refused');
    ids.add(result.data.attemptId);
  }
  assert.equal(ids.size, 1, 'one attempt');
  assert.equal(await storedAttempts(lab), 1);
  // Another statement is another attempt.
  const other = await submitGuard({ lab, name: 'Ada', statement: `${typo} AND` }, owner, address);
  assert.ok(other.ok);
  assert.equal(await storedAttempts(lab), 2);
});

test('refusals are limited per person: the eleventh in a minute is turned away, and nothing is stored for it', async () => {
  const { lab, owner, address } = await yourGuardLab();
  const answers = [];
  for (let i = 0; i < 12; i++) {
    answers.push(await submitGuard({ lab, name: 'Ada', statement: `UPDATE nope${i} SET x = 1` }, owner, address));
  }
  assert.equal(answers.filter((a) => a.ok).length, 10);
  const last = answers.at(-1);
  assert.ok(last && !last.ok);
  assert.equal(last.error.code, 'rate_limited');
  assert.match(
    last.error.message,
    /^at most 10 refused guards a minute: try again in \d+ s \(your statement is kept\)$/,
  );
  assert.equal(await storedAttempts(lab), 10);
});
