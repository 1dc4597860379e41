'use server';

import { startChaosRun } from '@/lib/chaos/chaos-runs';
import { getSupervisor, type WorkerView } from '@/lib/lab/supervisor';
import { validatedAction } from '@/lib/lab/validated-action';
import {
  chaosInput,
  pauseWorkerInput,
  resetLabInput,
  startWorkerInput,
  workerActionInput,
} from '@/lib/model/lab-inputs';

/*
 * The lab's controls. Each takes plain data, validated with zod; a worker is named by the lab's
 * own id ("w1") or its name, never by a process id, and nothing here takes SQL or a file path.
 */

const startWorker = validatedAction(startWorkerInput, ({ lab, settings }) =>
  getSupervisor().startWorker(lab, settings),
);
const pauseWorker = validatedAction(pauseWorkerInput, ({ lab, worker, plan }) =>
  getSupervisor().pause(lab, worker, plan),
);
const resumeWorker = validatedAction(workerActionInput, ({ lab, worker }) => getSupervisor().resume(lab, worker));
const crashWorker = validatedAction(workerActionInput, ({ lab, worker }) => getSupervisor().crash(lab, worker));
const restartWorker = validatedAction(workerActionInput, ({ lab, worker }) => getSupervisor().restart(lab, worker));
const resetLab = validatedAction(resetLabInput, async ({ lab }) => {
  await getSupervisor().resetLab(lab);
  return { lab };
});
const listWorkers = validatedAction(
  resetLabInput,
  async ({ lab }): Promise<WorkerView[]> => getSupervisor().listWorkers(lab),
);

const startChaos = validatedAction(chaosInput, async ({ lab, ...options }) => startChaosRun(lab, options));

export async function startChaosAction(input: unknown) {
  return startChaos(input);
}
export async function startWorkerAction(input: unknown) {
  return startWorker(input);
}
export async function pauseWorkerAction(input: unknown) {
  return pauseWorker(input);
}
export async function resumeWorkerAction(input: unknown) {
  return resumeWorker(input);
}
export async function crashWorkerAction(input: unknown) {
  return crashWorker(input);
}
export async function restartWorkerAction(input: unknown) {
  return restartWorker(input);
}
export async function resetLabAction(input: unknown) {
  return resetLab(input);
}
export async function listWorkersAction(input: unknown) {
  return listWorkers(input);
}
