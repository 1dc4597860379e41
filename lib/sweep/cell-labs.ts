import 'server-only';
import { randomBytes } from 'node:crypto';
import { appendEvent } from '../../db/events';
import { closeLab, createPrivateLab, type LabRecord, listOpenLabsOpenedFrom } from '../../db/labs';
import { getPool } from '../../db/pool';
import type { WorkerLabId } from '../model/lab/lab-kinds';
import { OPENS_WINDOW_MS } from '../model/lab/lab-limits';
import { type ProcessRun, processRunIsAlive, processRunOf } from '../os/processes';
import { INITIAL_ROW_VALUE } from '../supervisor/lab-reset';
import { getSupervisor } from '../supervisor/supervisor';

/*
 * Each run of a sweep has a private lab of its own: its own row, lease, workers and history, so
 * runs going on at once cannot disturb each other, and a run's outcome is read from its lab's
 * events alone. The lab is opened through the one door for private labs (db/labs.ts, the same
 * locked count of the room's limits: FENCING_LAB_MAX_PRIVATE_LABS open at once), under an owner made
 * up for that run (so that it takes nothing of a browser's 3) and the address `sweep`, whose opens
 * per hour are the sweeps' own limit, not a browser's 12. It is closed as soon as the run ends: its
 * workers stopped, its history kept for the retention period, like any closed private lab (no
 * browser can open it: its owner is made up). The made-up owner names the process that opened the
 * lab (its run: PID, start time, boot), so that a lab left open by a process that died mid-sweep (an
 * app server killed, a command line interrupted) is found and closed: by that process's own clean-up
 * when it can (closeOpenCellLabs), else by the next app server's start (closeOrphanedCellLabs).
 */

/** Labs all sweeps of a server may open in an hour: ten sweeps of the largest grid (24 points × 2). */
export const SWEEP_LAB_OPENS_PER_HOUR = 480;
export const SWEEP_ADDRESS = 'sweep';

const OWNER_PREFIX = 'sweep-run';

/**
 * A run lab's made-up owner: the opening process's run, then a random part of its own (so that each
 * run takes nothing of another's count). No browser's owner hash (64 hex digits) can ever equal it.
 */
export function cellLabOwner(run: ProcessRun | undefined): string {
  const random = randomBytes(16).toString('hex');
  return run ? `${OWNER_PREFIX}:${run.bootId}:${run.startTicks}:${run.pid}:${random}` : `${OWNER_PREFIX}:${random}`;
}

/** The process run that opened a sweep's run lab, read from its owner, if it says. */
export function cellLabOpener(ownerHash: string | undefined): ProcessRun | undefined {
  const match = /^sweep-run:([0-9a-f-]+):(\d+):(\d+):[0-9a-f]+$/.exec(ownerHash ?? '');
  if (!match) return undefined;
  return { bootId: match[1] as string, startTicks: match[2] as string, pid: Number(match[3]) };
}

/** The run labs this process opened and has not closed yet. */
const openHere = new Map<string, LabRecord>();

export async function openCellLab(kind: WorkerLabId): Promise<LabRecord> {
  const lab = await createPrivateLab({
    kind,
    ownerHash: cellLabOwner(processRunOf(process.pid)),
    openedFrom: SWEEP_ADDRESS,
    initialValue: INITIAL_ROW_VALUE,
    opensPerAddress: SWEEP_LAB_OPENS_PER_HOUR,
    opensWindowMs: OPENS_WINDOW_MS,
  });
  openHere.set(lab.id, lab);
  return lab;
}

/** Stops the run's workers, closes its lab for good and records why, keeping its history. */
export async function closeCellLab(lab: LabRecord, reason = 'the sweep run ended'): Promise<void> {
  openHere.delete(lab.id);
  await getSupervisor().closeLab(lab);
  await closeLab(lab.id);
  await appendEvent(getPool(), { lab: lab.id, actor: 'server', kind: 'lab_closed', detail: { reason } });
}

/** A command line's clean-up when it is interrupted mid-sweep: closes the run labs it still has open. */
export async function closeOpenCellLabs(reason: string): Promise<number> {
  const labs = [...openHere.values()];
  for (const lab of labs) await closeCellLab(lab, reason);
  return labs.length;
}

/**
 * At an app server's start: closes the sweeps' run labs still open whose opening process is gone (a
 * server that died mid-sweep, a command line killed). A lab opened in another boot or on another
 * machine (another boot id) is left alone, to the private labs' idle close: this machine cannot tell
 * whether its process runs. A lab whose owner names no process (opened before owners named it) is
 * closed. Returns the ids closed.
 */
export async function closeOrphanedCellLabs(): Promise<string[]> {
  const bootId = processRunOf(process.pid)?.bootId;
  const closed: string[] = [];
  for (const lab of await listOpenLabsOpenedFrom(SWEEP_ADDRESS)) {
    const opener = cellLabOpener(lab.ownerHash);
    if (opener && (opener.bootId !== bootId || processRunIsAlive(opener))) continue;
    await closeCellLab(lab, 'the process that ran this sweep run stopped before it ended');
    closed.push(lab.id);
  }
  return closed;
}
