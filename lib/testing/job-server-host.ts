import { JobRunner } from '../server/job-runner';
import { getSupervisor } from '../supervisor/supervisor';

/*
 * Stands in for one app server of the room in the job queue's tests: runs this process's job runner
 * (as instrumentation.ts starts it in Next), prints `ready <server id>` once it takes jobs, and runs
 * until killed; SIGTERM closes it as a shutdown would. Usage: job-server-host.ts <slots>
 */
const runner = new JobRunner(Number(process.argv[2] ?? 1));
await runner.start();
console.log(`ready ${runner.server}`);
process.once('SIGTERM', () => {
  void Promise.all([runner.close(), getSupervisor().shutdown()]).finally(() => process.exit(0));
});
setInterval(() => undefined, 60_000);
