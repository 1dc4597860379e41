import { MAX_PRIVATE_LABS_PER_OWNER, MAX_WORKERS_PER_SERVER } from './lab-inputs';

/*
 * The limits that keep a room's server usable whatever a script sends: how many private labs may be
 * open, per browser and per client address, and how the worker budget is split between the shared
 * labs and the private ones. Pure: the caller counts (in one locked transaction, or in one
 * synchronous step) and asks here whether one more is allowed.
 */

export const OPENS_WINDOW_MS = 60 * 60_000;

/** Worker processes only the shared labs (the trainer's) may use: private labs share the rest. */
export const WORKERS_RESERVED_FOR_SHARED = 8;
export const MAX_PRIVATE_LAB_WORKERS = MAX_WORKERS_PER_SERVER - WORKERS_RESERVED_FOR_SHARED;

export type PrivateLabCounts = {
  /** Private labs open in the room (every app server on the database). */
  open: number;
  /** Private labs this browser (owner secret) has open. */
  mine: number;
  /** Private labs this client address opened within the last OPENS_WINDOW_MS. */
  fromAddress: number;
  /** Private labs opened from this client address that are still open, however long ago. */
  openFromAddress: number;
};

/**
 * How many private labs one address may hold open at once: half of what it may open in an hour, so
 * that a script cannot take the whole room's share one hour at a time (a room behind one NAT raises
 * FENCING_LAB_OPENS_PER_ADDRESS, and this with it).
 */
export function openLabsPerAddress(opensPerAddress: number): number {
  return Math.max(1, Math.ceil(opensPerAddress / 2));
}

export type LimitRefusal = { code: 'limit_reached' | 'rate_limited'; message: string };

export type PrivateLabLimits = {
  /** Private labs one client address may open per OPENS_WINDOW_MS. */
  opensPerAddress: number;
  /** Private labs open at once in the room. */
  maxOpen: number;
};

/** Why one more private lab may not be opened, or undefined if it may. */
export function privateLabRefusal(counts: PrivateLabCounts, limits: PrivateLabLimits): LimitRefusal | undefined {
  const { opensPerAddress, maxOpen } = limits;
  if (counts.fromAddress >= opensPerAddress) {
    return {
      code: 'rate_limited',
      message: `your address opened ${opensPerAddress} private labs in the last hour, its limit: reuse one you have open, or try again later`,
    };
  }
  const heldOpen = openLabsPerAddress(opensPerAddress);
  if (counts.openFromAddress >= heldOpen) {
    return {
      code: 'limit_reached',
      message: `your address already has ${heldOpen} private labs open, its limit: close one (its page has "Close this lab") first`,
    };
  }
  if (counts.mine >= MAX_PRIVATE_LABS_PER_OWNER) {
    return {
      code: 'limit_reached',
      message: `you already have ${MAX_PRIVATE_LABS_PER_OWNER} private labs open: close one (its page has "Close this lab") first`,
    };
  }
  if (counts.open >= maxOpen) {
    return {
      code: 'limit_reached',
      message: `the room already has ${maxOpen} private labs open, its limit: try again when idle labs have closed, or ask the trainer`,
    };
  }
  return undefined;
}

/** What-if forks one browser may start per OPENS_WINDOW_MS (each also opens a private lab, and counts as one). */
export const MAX_FORKS_PER_BROWSER = 6;

/** Why this browser may not fork again now, given the forks it started in the last window, or undefined if it may. */
export function forkRefusal(forksInWindow: number): LimitRefusal | undefined {
  if (forksInWindow < MAX_FORKS_PER_BROWSER) return undefined;
  return {
    code: 'rate_limited',
    message: `you started ${MAX_FORKS_PER_BROWSER} what-if forks in the last hour, the limit per browser: reuse one, or try again later`,
  };
}

export type WorkerCounts = { shared: number; private: number };

/** Why one more worker process may not start in a lab (shared or private), or undefined if it may. */
export function workerBudgetRefusal(counts: WorkerCounts, visibility: 'shared' | 'private'): LimitRefusal | undefined {
  if (counts.shared + counts.private >= MAX_WORKERS_PER_SERVER) {
    return {
      code: 'limit_reached',
      message: `this server already runs ${MAX_WORKERS_PER_SERVER} workers, its limit: stop some, or wait for idle labs to close`,
    };
  }
  if (visibility === 'private' && counts.private >= MAX_PRIVATE_LAB_WORKERS) {
    return {
      code: 'limit_reached',
      message: `private labs already run ${MAX_PRIVATE_LAB_WORKERS} workers between them, their share (the rest is kept for the trainer's shared labs): stop some, or wait for idle labs to close`,
    };
  }
  return undefined;
}
