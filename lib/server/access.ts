import 'server-only';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { LabRecord } from '../../db/labs';
import { roomSettings } from '../config/room-settings';
import { FencingError } from '../model/core/errors';
import { singleton } from '../os/process-singletons';

/*
 * Who may drive what. Every browser may watch the shared labs; only the trainer drives them,
 * proven by a live trainer session (lib/server/trainer-session.ts: the cookie holds a session id,
 * never the key, and the server turns a live session into `trainerProof`). A private lab is seen
 * and driven only by the browser that opened it: that browser holds a random owner secret, and
 * the lab stores only its hash. Nothing here trusts anything the client says about itself.
 */

export const TRAINER_COOKIE = 'fl_trainer';
export const OWNER_COOKIE = 'fl_owner';
/** How long the owner cookie lasts (the trainer's lasts as long as its session). */
export const COOKIE_MAX_AGE_S = 60 * 60 * 24 * 30;

/**
 * What the server knows of a caller. `trainerProof` is set by the server only, once it found a live
 * trainer session for the caller's cookie (readCredentials); it is never read from a request.
 */
export type Credentials = { trainerProof?: string; ownerSecret?: string };

/** The trainer key: FENCING_LAB_TRAINER_KEY (the launcher sets it, printing it), or one made up now. */
export function trainerKey(): string {
  const fromEnv = roomSettings().trainerKey;
  if (fromEnv) return fromEnv;
  return singleton('server.trainer-key', () => {
    const key = newTrainerKey();
    console.log(`[fencing-lab] trainer key: ${key}`);
    return key;
  });
}

function newTrainerKey(): string {
  return randomBytes(12).toString('base64url');
}

/** An HMAC of the key: what a trainer session is bound to, and the server-side proof of a live one. */
export function trainerProofOf(key: string): string {
  return createHmac('sha256', key).update('fencing-lab trainer').digest('base64url');
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function isTrainerKey(candidate: string): boolean {
  return sameText(candidate.trim(), trainerKey());
}

export function isTrainer(credentials: Credentials): boolean {
  return credentials.trainerProof !== undefined && sameText(credentials.trainerProof, trainerProofOf(trainerKey()));
}

export function newOwnerSecret(): string {
  return randomBytes(24).toString('base64url');
}

export function ownerHashOf(secret: string): string {
  return createHash('sha256').update(`fencing-lab owner:${secret}`).digest('hex');
}

/** The key a person is shown by (the class wall's, a counterexample's): from the owner's hash, never the hash itself. */
export function traineeKeyOf(ownerHash: string): string {
  return createHash('sha256').update(`wall:${ownerHash}`).digest('hex').slice(0, 16);
}

function ownsLab(lab: LabRecord, credentials: Credentials): boolean {
  return (
    lab.ownerHash !== undefined &&
    credentials.ownerSecret !== undefined &&
    sameText(ownerHashOf(credentials.ownerSecret), lab.ownerHash)
  );
}

export function canView(lab: LabRecord, credentials: Credentials): boolean {
  return lab.visibility === 'shared' || ownsLab(lab, credentials);
}

export function canDrive(lab: LabRecord, credentials: Credentials): boolean {
  return lab.visibility === 'shared' ? isTrainer(credentials) : ownsLab(lab, credentials);
}

/** Throws the error a person can act on when the caller may not drive the lab. */
export function requireDriver(lab: LabRecord, credentials: Credentials): void {
  if (canDrive(lab, credentials)) {
    if (lab.closedAt) {
      throw new FencingError(
        'lab_closed',
        'this private lab was closed after being idle; its history is kept for replay: open a new lab to drive one',
      );
    }
    return;
  }
  throw new FencingError(
    'forbidden',
    lab.visibility === 'shared'
      ? 'only the trainer drives the shared labs: enter the trainer key, or open a private lab of your own'
      : 'this private lab belongs to another browser',
  );
}

/**
 * Reads the owner's credentials from a Cookie header (route handlers, and tests). The trainer cookie
 * is not read here: it counts only once its session is checked (readCredentials).
 */
export function credentialsFromCookieHeader(header: string | null): Credentials {
  const credentials: Credentials = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    // Only this app's cookies are read: another app's on the same host (cookies ignore the port)
    // may hold anything, and must not break the feed.
    if (name !== OWNER_COOKIE) continue;
    let value: string;
    try {
      value = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      // A value that is not URI-encoded is no owner secret of ours: skip it.
      continue;
    }
    credentials.ownerSecret = value;
  }
  return credentials;
}
