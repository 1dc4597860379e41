import 'server-only';
import { notFound } from 'next/navigation';
import { findLab } from '../../db/labs';
import { type LabSummary, summaryOf } from '../model/lab-instance';
import { canDrive, canView, isTrainer } from './access';
import { readCredentials } from './request-credentials';

export type LabAccess = { lab: LabSummary; canDrive: boolean; isTrainer: boolean };

/** The lab a page is about, as this caller may see it; a 404 when it may not (or there is none). */
export async function labForPage(id: string): Promise<LabAccess> {
  const [lab, credentials] = await Promise.all([findLab(id), readCredentials()]);
  if (!lab || !canView(lab, credentials)) notFound();
  return {
    lab: summaryOf(lab),
    canDrive: canDrive(lab, credentials) && !lab.closedAt,
    isTrainer: isTrainer(credentials),
  };
}
