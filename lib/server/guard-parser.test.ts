import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseGuard } from './guard-parser';

const RIGHT = 'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3 AND last_token <= $2';

async function refusal(text: string): Promise<string> {
  const parsed = await parseGuard(text);
  assert.equal(parsed.ok, false, `${text} should be refused`);
  return parsed.ok ? '' : `${parsed.refusal}: ${parsed.reason}`;
}

describe('a guard read by PostgreSQL’s parser', () => {
  it('accepts the right guard and the three classic wrong ones, as canonical SQL without comments', async () => {
    for (const text of [
      `${RIGHT} -- mine`,
      'update guarded_row set value = $1, last_token = $2 where id = $3 and last_token::text <= $2::text',
      'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3',
      'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3 AND last_token >= $2;',
      'UPDATE guarded_row g SET value = $1, last_token = $2 WHERE g.id = $3 AND NOT (g.last_token > $2)',
    ]) {
      const parsed = await parseGuard(text);
      assert.ok(parsed.ok, `${text}: ${parsed.ok ? '' : parsed.reason}`);
      assert.doesNotMatch(parsed.statement, /--|;/);
      assert.match(parsed.statement, /^UPDATE guarded_row/);
    }
  });

  it('refuses numbers that cost a CPU: an exponent, more than 19 digits, a cast to numeric', async () => {
    const why = /^number: a guard's numbers have at most 19 digits and no exponent/;
    assert.match(await refusal(`${RIGHT} AND (1e65000 / 7) > 0`), /^number: .*\(1e65000 has an exponent\)$/);
    assert.match(await refusal(`${RIGHT} AND $2 < 1E3`), why);
    assert.match(await refusal(`${RIGHT} AND $2 < ${'9'.repeat(20)}`), /\(9{20} has 20\)$/);
    assert.match(await refusal(`${RIGHT} AND 1.5 * '1e65000' > 0`), why);
    assert.match(await refusal(`${RIGHT} AND '${'1'.repeat(30)}'::bigint > 0`), why);
    assert.match(
      await refusal(`${RIGHT} AND last_token::numeric <= $2::numeric`),
      /^cast: .*\(not pg_catalog.numeric\)$/,
    );
    // Tokens as big as a bigint, and decimals, still read.
    for (const fine of [`${RIGHT} AND $2 < 9223372036854775807`, `${RIGHT} AND 1.5 > 0`, `${RIGHT} AND value <> 'x'`]) {
      const parsed = await parseGuard(fine);
      assert.ok(parsed.ok, fine);
    }
  });

  it('refuses a guard whose canonical form is longer than 2000 characters, though the text typed is not', async () => {
    const text = `${RIGHT}${'+0'.repeat(600)}`;
    assert.ok(text.length < 2000);
    assert.match(
      await refusal(text),
      /^not-allowed: a guard is at most 2000 characters as PostgreSQL writes it back \(its canonical form\), and this one is \d{4}: shorten it$/,
    );
  });

  it('refuses, with its reason, what is not one UPDATE of the lab’s own table', async () => {
    assert.match(
      await refusal(`${RIGHT}; SELECT 1`),
      /^not-one-statement: a guard is exactly one statement, and this is 2/,
    );
    assert.match(await refusal('/* nothing */'), /^not-one-statement/);
    assert.match(await refusal('DELETE FROM guarded_row'), /^not-update: .*not a DELETE/);
    assert.match(await refusal('SELECT pg_sleep(10)'), /^not-update: .*not a SELECT/);
    assert.match(await refusal("SET statement_timeout = '0'"), /^not-update: .*not a SET/);
    assert.match(
      await refusal('UPDATE unguarded_rows SET value = $1 WHERE id = $3'),
      /^other-table: .*not unguarded_rows/,
    );
    assert.match(await refusal('UPDATE public.guarded_row SET value = $1'), /^other-table: .*not public\.guarded_row/);
    assert.match(await refusal('UPDATE guarded_row SET value = $1 FROM events WHERE id = $3'), /^from: /);
    assert.match(await refusal('UPDATE guarded_row SET value = $1 RETURNING value'), /^returning: /);
    assert.match(
      await refusal('WITH x AS (DELETE FROM events) UPDATE guarded_row SET value = $1'),
      /^with: a guard has no WITH clause/,
    );
    assert.match(await refusal('syntax error here'), /^not-allowed: PostgreSQL's parser: syntax error/);
  });

  it('refuses every function call, sub-select, foreign parameter, column and cast', async () => {
    assert.match(await refusal(`${RIGHT} AND pg_sleep(5) IS NOT NULL`), /^function-call: .*\(it calls pg_sleep\)/);
    assert.match(
      await refusal("UPDATE guarded_row SET value = set_config('role', 'x', false) WHERE id = $3"),
      /^function-call: .*set_config/,
    );
    assert.match(
      await refusal("UPDATE guarded_row SET last_token = nextval('write_epoch')"),
      /^function-call: .*nextval/,
    );
    assert.match(
      await refusal('UPDATE guarded_row SET value = $1 WHERE id = $3 AND now() IS NOT NULL'),
      /^function-call/,
    );
    assert.match(
      await refusal('UPDATE guarded_row SET value = $1 WHERE last_token <= (SELECT max(token) FROM events)'),
      /^sub-select: /,
    );
    assert.match(await refusal('UPDATE guarded_row SET value = $4'), /^parameter: .*not \$4/);
    assert.match(
      await refusal('UPDATE guarded_row SET id = $3'),
      /^column: a guard sets value and last_token only \(not id\)/,
    );
    assert.match(await refusal('UPDATE guarded_row SET value = xmin::text'), /^column: .*not xmin/);
    assert.match(await refusal('UPDATE guarded_row SET value = $1 WHERE events.id = $3'), /^other-table: .*not events/);
    assert.match(await refusal("UPDATE guarded_row SET value = 'pg_authid'::regclass::text"), /^cast: .*not regclass/);
    assert.match(
      await refusal('UPDATE guarded_row SET value = $1 WHERE last_token OPERATOR(public.<=) $2'),
      /^operator: /,
    );
    assert.match(await refusal("UPDATE guarded_row SET value = $1 WHERE value ~ 'x'"), /^operator: .*not ~/);
    assert.match(await refusal('UPDATE guarded_row SET value = $1 WHERE CURRENT OF c'), /^not-allowed: .*CURRENT OF/);
  });
});
