import 'server-only';
import { notFound, redirect } from 'next/navigation';
import { type LabDoors, readLabDoors } from '../../db/lab-doors';
import { findLab, labJoinKey, readLabFork } from '../../db/labs';
import { runsOnFailoverPair } from '../labs/traits';
import type { ForkRecord } from '../model/history/what-if';
import { type LabSummary, summaryOf } from '../model/lab/lab-instance';
import { canDrive, canView, isTrainer } from './access';
import { readCredentials } from './request-credentials';

/** joinKey: a private lab's, for its owner only (a worker from their own machine joins with it). */
export type LabAccess = { lab: LabSummary; canDrive: boolean; isTrainer: boolean; joinKey?: string };

/**
 * The lab a page is about, as this caller may see it; a 404 when it may not (or there is none). The
 * failover lab has a page of its own (app/labs/failover): the pages of worker labs lead there.
 */
export async function labForPage(id: string, options: { failoverPage?: boolean } = {}): Promise<LabAccess> {
  const [lab, credentials] = await Promise.all([findLab(id), readCredentials()]);
  if (!lab || !canView(lab, credentials)) notFound();
  if (runsOnFailoverPair(lab.kind) && !options.failoverPage) redirect('/labs/failover');
  const drives = canDrive(lab, credentials) && !lab.closedAt;
  const joinKey = drives && lab.visibility === 'private' ? await labJoinKey(lab.id) : undefined;
  return {
    lab: summaryOf(lab),
    canDrive: drives,
    isTrainer: isTrainer(credentials),
    ...(joinKey ? { joinKey } : {}),
  };
}

/** Where a what-if fork came from, for a page that shows the lab: only a private lab is ever a fork. */
export async function forkOfLab(lab: LabSummary): Promise<ForkRecord | undefined> {
  return lab.visibility === 'private' ? readLabFork(lab.id) : undefined;
}

/** A shared lab's doors (remote workers in or not, whether nobody watching stopped it): none for a closed or private lab. */
export async function doorsOfLab(lab: LabSummary): Promise<LabDoors | undefined> {
  return lab.visibility === 'shared' && !lab.closed ? readLabDoors(lab.id) : undefined;
}
