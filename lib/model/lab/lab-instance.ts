import { isSharedLabId, LABS, type LabId } from './lab-kinds';

/*
 * A lab as it runs: one of the lab kinds (the fenced lab, or one of the classic mistakes) on a row
 * and a lease of its own. The eight shared labs are named after their kind ("fenced") and every
 * browser on the server sees them; a private lab is named p-<10 characters> and belongs to the one
 * browser that opened it. A private lab's rows, lease, history and workers are its own.
 */

export type LabVisibility = 'shared' | 'private';

export type LabInstance = {
  /** The lab's name in URLs, events and commands. */
  id: string;
  kind: LabId;
  /** The row its workers write: in protected_rows for the fenced kind, in unguarded_rows otherwise. */
  rowId: number;
  /** The lease its workers contend for. */
  resource: string;
  visibility: LabVisibility;
};

export const PRIVATE_LAB_ID_PATTERN = /^p-[a-z0-9]{10}$/;
const PRIVATE_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

export function isPrivateLabId(id: unknown): id is string {
  return typeof id === 'string' && PRIVATE_LAB_ID_PATTERN.test(id);
}

/** Whether `id` could name a lab at all (a shared lab, or the shape of a private one). */
export function isLabInstanceId(id: unknown): id is string {
  return isPrivateLabId(id) || isSharedLabId(id);
}

/** One of the labs every browser shares (lib/model/lab/lab-kinds.ts). */
export function sharedLab(kind: LabId): LabInstance {
  const { rowId, resource } = LABS[kind];
  return { id: kind, kind, rowId, resource, visibility: 'shared' };
}

/** A fresh private lab id from random bytes (about 52 bits: not guessable from another browser). */
export function privateLabIdFrom(randomBytes: Uint8Array): string {
  if (randomBytes.length < 10) throw new Error('a private lab id needs 10 random bytes');
  let id = 'p-';
  for (let i = 0; i < 10; i++) id += PRIVATE_ID_ALPHABET[(randomBytes[i] ?? 0) % PRIVATE_ID_ALPHABET.length];
  return id;
}

export function privateResourceOf(id: string): string {
  return `lab/${id}`;
}

/** How a lab is called on screen. */
export function labTitle(lab: LabInstance): string {
  const title = LABS[lab.kind].title;
  return lab.visibility === 'private' ? `${title} (private lab ${lab.id})` : title;
}

/** What a page tells the browser about a lab (no row ids, no owner). */
export type LabSummary = { id: string; kind: LabId; visibility: LabVisibility; closed: boolean };

export function summaryOf(lab: LabInstance & { closedAt?: Date }): LabSummary {
  return { id: lab.id, kind: lab.kind, visibility: lab.visibility, closed: lab.closedAt !== undefined };
}

/** How a lab is called in a heading: its kind's title, and whether it is private. */
export function summaryTitle(lab: LabSummary): string {
  return lab.visibility === 'private' ? `${LABS[lab.kind].title} · private lab` : LABS[lab.kind].title;
}
