import { acquireLease } from '../../db/leases';
import { closePool } from '../../db/pool';

/*
 * A separate process that takes one lease and prints its token as JSON: a fresh "app" with no
 * memory of earlier tokens, for the restart test. Usage: acquire-once.ts <resource> <holder>
 */
const [resource, holder] = process.argv.slice(2);
try {
  const result = await acquireLease({ lab: 'tests', resource, holder, ttlMs: 100 });
  console.log(JSON.stringify(result.outcome === 'granted' ? { token: result.lease.token } : { busy: true }));
} finally {
  await closePool();
}
