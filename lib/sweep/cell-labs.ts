import 'server-only';
import { randomBytes } from 'node:crypto';
import { appendEvent } from '../../db/events';
import { closeLab, createPrivateLab, type LabRecord } from '../../db/labs';
import { getPool } from '../../db/pool';
import type { WorkerLabId } from '../model/lab-kinds';
import { OPENS_WINDOW_MS } from '../model/lab-limits';
import { INITIAL_ROW_VALUE } from '../supervisor/lab-reset';
import { getSupervisor } from '../supervisor/supervisor';

/*
 * Each run of a sweep has a private lab of its own: its own row, lease, workers and history, so
 * runs going on at once cannot disturb each other, and a run's outcome is read from its lab's
 * events alone. The lab is opened through the one door for private labs (db/labs.ts, the same
 * locked count of the server's limits: at most 30 private labs open at once), under an owner made
 * up for that run (so that it takes nothing of a browser's 3) and the address `sweep`, whose opens
 * per hour are the sweeps' own limit, not a browser's 12. It is closed as soon as the run ends: its
 * workers stopped, its history kept for the retention period, like any closed private lab.
 */

/** Labs all sweeps of a server may open in an hour: ten sweeps of the largest grid (24 points × 2). */
export const SWEEP_LAB_OPENS_PER_HOUR = 480;
const SWEEP_ADDRESS = 'sweep';

export async function openCellLab(kind: WorkerLabId): Promise<LabRecord> {
  return createPrivateLab({
    kind,
    ownerHash: randomBytes(32).toString('hex'),
    openedFrom: SWEEP_ADDRESS,
    initialValue: INITIAL_ROW_VALUE,
    opensPerAddress: SWEEP_LAB_OPENS_PER_HOUR,
    opensWindowMs: OPENS_WINDOW_MS,
  });
}

/** Stops the run's workers, closes its lab for good and records why, keeping its history. */
export async function closeCellLab(lab: LabRecord): Promise<void> {
  await getSupervisor().closeLab(lab);
  await closeLab(lab.id);
  await appendEvent(getPool(), {
    lab: lab.id,
    actor: 'server',
    kind: 'lab_closed',
    detail: { reason: 'the sweep run ended' },
  });
}
