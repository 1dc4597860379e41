import { setTimeout as sleep } from 'node:timers/promises';
import { sharedLab } from '../model/lab/lab-instance';
import type { LabId } from '../model/lab/lab-kinds';
import { getSupervisor } from '../supervisor/supervisor';

/*
 * Stands in for the Next server in the no-orphans tests (lib/supervisor/supervisor.test.ts,
 * lib/jobs/orphaned-workers.test.ts): starts two workers in a lab, freezes one until resumed,
 * prints the workers' process ids as JSON, and waits to be killed.
 * Usage: supervisor-host.ts <lab>
 */
const lab = sharedLab((process.argv[2] ?? 'fenced') as LabId);
const supervisor = getSupervisor();
await supervisor.resetLab(lab);
await supervisor.startWorker(lab, { name: 'A', leaseTtlMs: 2_000, renewEveryMs: 500, writeEveryMs: 300 });
await supervisor.startWorker(lab, { name: 'B', leaseTtlMs: 2_000, renewEveryMs: 500, writeEveryMs: 300 });
while ((await supervisor.listWorkers(lab)).some((w) => w.phase === 'starting')) await sleep(20);
const paused = await supervisor.pause(lab, 'A', { mode: 'until-resumed' });
console.log(JSON.stringify({ pids: supervisor.processIds(), pausedPhase: paused.phase }));
setInterval(() => undefined, 60_000);
