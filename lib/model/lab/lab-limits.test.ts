import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_WORKERS_PER_SERVER } from './lab-inputs';
import {
  MAX_PRIVATE_LAB_WORKERS,
  openLabsPerAddress,
  privateLabRefusal,
  WORKERS_RESERVED_FOR_SHARED,
  workerBudgetRefusal,
} from './lab-limits';

test('private labs can never take the workers kept for the shared labs', () => {
  assert.equal(MAX_PRIVATE_LAB_WORKERS + WORKERS_RESERVED_FOR_SHARED, MAX_WORKERS_PER_SERVER);
  const full = { shared: 0, private: MAX_PRIVATE_LAB_WORKERS };
  assert.match(workerBudgetRefusal(full, 'private')?.message ?? '', /kept for the trainer's shared labs/);
  assert.equal(workerBudgetRefusal(full, 'shared'), undefined, 'the trainer still starts one');
  const server = { shared: WORKERS_RESERVED_FOR_SHARED, private: MAX_PRIVATE_LAB_WORKERS };
  assert.match(workerBudgetRefusal(server, 'shared')?.message ?? '', /already runs 40 workers/);
  assert.equal(workerBudgetRefusal({ shared: 39, private: 0 }, 'shared'), undefined);
});

const LIMITS = { opensPerAddress: 12, maxOpen: 30 };

test('each refusal to open a lab says which limit, the address first', () => {
  assert.equal(privateLabRefusal({ open: 0, mine: 0, fromAddress: 0, openFromAddress: 0 }, LIMITS), undefined);
  assert.equal(
    privateLabRefusal({ open: 30, mine: 3, fromAddress: 12, openFromAddress: 0 }, LIMITS)?.code,
    'rate_limited',
  );
  assert.match(
    privateLabRefusal({ open: 30, mine: 3, fromAddress: 0, openFromAddress: 0 }, LIMITS)?.message ?? '',
    /you already have 3/,
  );
  assert.match(
    privateLabRefusal({ open: 30, mine: 0, fromAddress: 0, openFromAddress: 0 }, LIMITS)?.message ?? '',
    /the room already has 30 private labs open/,
  );
  assert.equal(
    privateLabRefusal({ open: 30, mine: 0, fromAddress: 0, openFromAddress: 0 }, { ...LIMITS, maxOpen: 31 }),
    undefined,
  );
  const held = privateLabRefusal({ open: 6, mine: 0, fromAddress: 6, openFromAddress: 6 }, LIMITS);
  assert.match(held?.message ?? '', /your address already has 6 private labs open/);
  assert.equal(openLabsPerAddress(100), 50, 'a room behind one NAT that raises the hourly limit raises this one too');
});
