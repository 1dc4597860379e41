import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { closeLab, createPrivateLab, type LabRecord } from '../../db/labs';
import { closePool } from '../../db/pool';
import { dropGuard, installGuard } from '../../db/your-guard';
import { parseGuard } from '../server/guard-parser';
import { INITIAL_ROW_VALUE } from '../supervisor/lab-reset';
import { getSupervisor } from '../supervisor/supervisor';
import { runGuardAttack } from './guard-attack';

/*
 * A trainee's guard attacked with real worker processes: the right one holds, and each classic wrong
 * one gets its named violation and a counterexample made of the events that show it.
 */

/*
 * Each test attacks a guard in a private lab of its own, so that the tests run side by side, two at a
 * time (as one app server runs two attacks at once by default): most of an attack is real time (a
 * lease running out, seconds of chaos).
 */
const labs: LabRecord[] = [];

async function ownLab(): Promise<LabRecord> {
  const lab = await createPrivateLab({
    kind: 'your-guard',
    ownerHash: randomBytes(32).toString('hex'),
    openedFrom: `guard-attack-${randomBytes(4).toString('hex')}`,
    initialValue: INITIAL_ROW_VALUE,
    opensPerAddress: 1,
    opensWindowMs: 1,
  });
  labs.push(lab);
  return lab;
}

after(async () => {
  await getSupervisor().shutdown();
  for (const lab of labs) {
    await dropGuard(lab.id);
    await closeLab(lab.id);
  }
  await closePool();
});

async function attack(text: string) {
  const parsed = await parseGuard(text);
  assert.ok(parsed.ok);
  const lab = await ownLab();
  await installGuard(lab.id, parsed.statement);
  const { verdict, events } = await runGuardAttack(lab, parsed.constants);
  // Every lane of the attack ends with its worker: its last life event is its stop (or a crash).
  const life = new Map<string, string>();
  for (const e of events) if (e.kind.startsWith('worker_')) life.set(e.actor, e.kind);
  assert.ok(life.size > 0, 'the attack started workers');
  for (const [actor, last] of life) assert.match(last, /^worker_(stopped|crashed)$/, `${actor}'s lane ends`);
  const kinds = verdict.counterexample.map((id) => {
    const e = events.find((event) => event.id === id);
    return `${e?.actor} ${e?.kind} ${e?.token}`;
  });
  return { verdict, kinds };
}

const SET = 'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3';

describe('your guard, attacked by the pause story across the digit boundary', { concurrency: 2 }, () => {
  test('the right guard holds, through the pause story and seeded chaos over two seeds; the verdict says what was tried', async () => {
    const { verdict } = await attack(`${SET} AND last_token <= $2`);
    assert.equal(verdict.passed, true, verdict.headline);
    assert.match(
      verdict.headline,
      /^your guard held against the pause story and \d+ stale writes? over 2 seeds of chaos \(15, 16; the story sent token 9\), and every interleaving of 2 holders × 3 writes \(112\)$/,
    );
    assert.doesNotMatch(verdict.headline, /safe/);
    assert.deepEqual(verdict.counterexample, []);
  });

  test("a backdoor value in the statement is tried: a stale writer sends 'let-me-in' with its older token, and it is accepted", async () => {
    const { verdict, kinds } = await attack(`${SET} AND (last_token <= $2 OR $1 = 'let-me-in')`);
    assert.equal(verdict.passed, false, verdict.headline);
    assert.equal(verdict.headline, 'your guard let token 9 overwrite token 10');
    assert.ok(kinds.at(-1) === 'A write_accepted 9', kinds.join(', '));
  });

  test('a backdoor token in the statement is tried: a stale writer holds that token when it wakes', async () => {
    const { verdict, kinds } = await attack(`${SET} AND (last_token <= $2 OR $2 = 42)`);
    assert.equal(verdict.passed, false, verdict.headline);
    assert.equal(verdict.headline, 'your guard let token 42 overwrite token 44');
    assert.ok(kinds.includes('B lease_acquired 44'), kinds.join(', '));
  });

  test('no token check: token 9 overwrites token 10', async () => {
    const { verdict, kinds } = await attack(SET);
    assert.equal(verdict.passed, false);
    assert.equal(verdict.rule, 'token-went-back');
    assert.equal(verdict.headline, 'your guard let token 9 overwrite token 10');
    assert.deepEqual(
      kinds.filter((k) => /lease_acquired|pause/.test(k)),
      // The freeze records the token A believes it holds (the walkthrough names it from there).
      ['A lease_acquired 9', 'A pause_started 9', 'B lease_acquired 10', 'A pause_ended undefined'],
    );
    assert.ok(kinds.includes('B write_accepted 10') && kinds.at(-1) === 'A write_accepted 9', kinds.join(', '));
  });

  test('< on text: token 10 turned away while the row holds 9', async () => {
    const { verdict, kinds } = await attack(`${SET} AND last_token::text <= $2::text`);
    assert.equal(verdict.rule, 'newer-token-rejected');
    assert.equal(verdict.headline, 'your guard turned away token 10 while the row held only token 9');
    assert.ok(kinds.includes('B write_rejected 10'), kinds.join(', '));
  });

  test("the seed's own guard, < instead of <=, holds: a retry under the same token is refused, never let through", async () => {
    const { verdict } = await attack(`${SET} AND last_token < $2`);
    assert.equal(verdict.passed, true, verdict.headline);
    assert.deepEqual(verdict.counterexample, []);
  });

  test('>= reversed: the first write is turned away', async () => {
    const { verdict } = await attack(`${SET} AND last_token >= $2`);
    assert.equal(verdict.rule, 'newer-token-rejected');
    assert.equal(verdict.headline, 'your guard turned away token 9 while the row held only token 0');
  });

  test('a guard right only up to the token it names: the story tries the token past it', async () => {
    // Right for 9 and 10; the story's writer with 11 (the constant's neighbour) is turned away.
    const { verdict } = await attack(`${SET} AND last_token <= $2 AND $2 <= 10`);
    assert.equal(verdict.passed, false, verdict.headline);
    assert.equal(verdict.headline, 'your guard turned away token 11 while the row held only token 10');
    assert.ok(verdict.counterexample.length > 0);
  });

  test('a guard that fails as it runs wrote nothing, and says why', async () => {
    // Fine for tokens 0 and 9; token 10 divides by zero.
    const { verdict } = await attack(`${SET} AND last_token <= $2 AND 1 / (10 - $2) >= 0`);
    assert.equal(verdict.passed, false);
    assert.equal(
      verdict.headline,
      "your guard raised an error on token 10's write and wrote nothing: division by zero",
    );
  });

  test('a guard that raises an error only on real writes: the error is its verdict, and the attack ends', async () => {
    // Token 0 (the install's trial) short-circuits; every real write divides by zero, the first with
    // token 1 (the statement names 0 and 1, and the story tries them).
    const { verdict, kinds } = await attack(`${SET} AND last_token <= $2 AND $2 > 0 AND 1/0 = 1`);
    assert.equal(verdict.passed, false);
    assert.equal(verdict.headline, "your guard raised an error on token 1's write and wrote nothing: division by zero");
    assert.ok(kinds.includes('A write_rejected 1'), kinds.join(', '));
  });

  test('PostgreSQL refuses a statement the parser lets through but the table cannot run', async () => {
    const lab = await ownLab();
    await assert.rejects(
      installGuard(lab.id, "UPDATE guarded_row SET last_token = 'not a number'"),
      /PostgreSQL refused the guard: invalid input syntax for type bigint/,
    );
  });
});
