import assert from 'node:assert/strict';
import { test } from 'node:test';
import { execShownAs } from './exec-lane';

test("the lab's history names a person's program, never the rest of what they typed", () => {
  assert.equal(execShownAs('bash clients/psql/worker.sh'), 'bash worker.sh');
  assert.equal(execShownAs('/usr/bin/python3 clients/python/worker.py'), 'python3 worker.py');
  // A secret in a variable, an option or an argument stays on the person's machine.
  assert.equal(execShownAs('PGPASSWORD=s3cret python3 -u my.py --key x'), 'python3');
  assert.equal(execShownAs('python3 my_client.py --password hunter2'), 'python3 my_client.py');
  assert.equal(execShownAs('node client.js s3cret-token'), 'node client.js');
  assert.equal(execShownAs('./client'), 'client');
  assert.equal(execShownAs(`python3 ${'a'.repeat(100)}.py`).length, 60);
});
