import { startReplicaPair } from '../supervisor/failover/replica-pair';

/*
 * A process that owns a failover pair and then does nothing, for the test that kills it (-9): it
 * prints the pair's directory and postmaster PIDs as one JSON line once both servers run.
 */

const pair = await startReplicaPair({ mode: process.argv[2] === 'sync' ? 'sync' : 'async' });
console.log(
  JSON.stringify({ dir: pair.dir, primaryPid: pair.primary.postmasterPid, standbyPid: pair.standby.postmasterPid }),
);
setInterval(() => undefined, 60_000);
