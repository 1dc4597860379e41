import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closeAll, closeSingleton, existingSingleton, singleton } from './process-singletons';

/*
 * One of each per process, however many copies of a module ask (Next loads modules more than once), and one
 * shutdown that ends them in the reverse order of their creation.
 */

test('the first call makes it, every later call gets the same; a failed create makes none', async () => {
  let made = 0;
  const a = singleton('t1.same', () => ({ n: ++made }));
  assert.equal(
    singleton('t1.same', () => ({ n: ++made })),
    a,
  );
  assert.equal(made, 1);
  assert.equal(existingSingleton('t1.same'), a);
  assert.equal(existingSingleton('t1.never'), undefined);
  assert.throws(() =>
    singleton('t1.fails', () => {
      throw new Error('no');
    }),
  );
  assert.equal(
    singleton('t1.fails', () => 'second try'),
    'second try',
  );
  await closeAll();
});

test('closeAll closes the last made first, then one a close made again, and forgets them all', async () => {
  const closed: string[] = [];
  // Made before the pool, its shutdown uses the pool, closed before it: the pool is made again, and closed last.
  singleton(
    't2.supervisor',
    () => 'supervisor',
    (v) => {
      closed.push(v);
      singleton(
        't2.pool',
        () => 'pool again',
        (again) => closed.push(again),
      );
    },
  );
  singleton(
    't2.pool',
    () => 'pool',
    (v) => closed.push(v),
  );
  singleton(
    't2.feed',
    () => 'feed',
    async (v) => {
      closed.push(v);
    },
  );
  singleton('t2.plain', () => 'no close');
  await closeSingleton('t2.feed');
  assert.equal(
    singleton(
      't2.feed',
      () => 'feed 2',
      (v) => closed.push(v),
    ),
    'feed 2',
  );
  await closeAll();
  assert.deepEqual(closed, ['feed', 'feed 2', 'pool', 'supervisor', 'pool again']);
  assert.equal(existingSingleton('t2.pool'), undefined);
  assert.equal(existingSingleton('t2.plain'), undefined);
});

test('a close that fails does not keep the others open', async () => {
  const closed: string[] = [];
  singleton(
    't3.a',
    () => 'a',
    (v) => closed.push(v),
  );
  singleton(
    't3.b',
    () => 'b',
    () => {
      throw new Error('b would not close');
    },
  );
  singleton(
    't3.c',
    () => 'c',
    (v) => closed.push(v),
  );
  await assert.rejects(closeAll(), (error: AggregateError) => error.errors.length === 1);
  assert.deepEqual(closed, ['c', 'a']);
  assert.equal(existingSingleton('t3.b'), undefined);
});
