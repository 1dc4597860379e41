import 'server-only';
import { notFound, redirect } from 'next/navigation';
import { findLab, labJoinKey } from '../../db/labs';
import { runsOnFailoverPair } from '../labs/traits';
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
