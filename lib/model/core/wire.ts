import type { PollView } from '../poll/poll';
import type { EventKind, LabEvent } from './events';

/** An event as it crosses to the browser: database time in milliseconds since the epoch. */
export type WireEvent = {
  id: number;
  lab: string;
  at: number;
  actor: string;
  kind: EventKind;
  resource?: string;
  rowId?: number;
  token?: number;
  storedToken?: number;
  outcome?: string;
  detail: Record<string, unknown>;
};

export function toWire(event: LabEvent): WireEvent {
  const { at, detail, ...rest } = event;
  return { ...rest, at: at.getTime(), detail: publicDetail(detail ?? {}) };
}

/**
 * An event's detail without what only the app servers need: the run of the server that started a
 * worker (`server`: its pid, boot id and start time, for lib/jobs/orphaned-workers.ts). A failover
 * step's `server` is a name ("primary") and stays. db/events.ts readWireEventPage leaves out the same.
 */
function publicDetail(detail: Record<string, unknown>): Record<string, unknown> {
  if (typeof detail.server !== 'object' || detail.server === null) return detail;
  const { server: _processRun, ...rest } = detail;
  return rest;
}

/** A chaos run started from the UI, as the lab's feed reports it. */
export type ChaosRunView = {
  seed: number;
  workers: number;
  seconds: number;
  running: boolean;
  /** This server's clock (ms since the epoch). */
  endsAt: number;
  /** `staleAttempts` and `stalePerMinute`: the writes that tested the fence (lib/model/chaos/chaos-tally.ts). */
  result?: {
    ok: boolean;
    violations: number;
    accepted: number;
    staleAttempts: number;
    staleAccepted: number;
    stalePerMinute: number;
  };
  failure?: string;
};

/** The lab's live state beside the history: its row and lease as they are in the database. */
export type LabSnapshot = {
  lab: string;
  /** The database's clock when the snapshot was taken (ms since the epoch). */
  dbNow: number;
  row?: { table: string; id: number; value: string; lastToken: number; updatedAt: number };
  lease?: { holder: string; token: number; acquiredAt: number; expiresAt: number };
  workers: Array<{
    id: string;
    name: string;
    phase: string;
    alive: boolean;
    armed: boolean;
    token?: number;
    believedUntil?: string;
    settings: { leaseTtlMs: number; renewEveryMs: number; writeEveryMs: number };
    /** Started by hand (`npm run worker`), not by an app server: restarted where it was started, never from a page. */
    remote?: boolean;
  }>;
  chaos?: ChaosRunView;
  /**
   * The walkthrough step (from 0) the trainer is showing, as the lab records it for its current run:
   * what a watcher's page shows. Absent until the trainer shows one after the lab's last reset.
   */
  walkthroughStep?: number;
  /** The questions the trainer asked the room in this run (lib/model/poll/poll.ts): tallies only once revealed. */
  polls?: PollView[];
  /** How many browsers watch the lab's live feed on this server (the room, as the trainer sees it). */
  viewers?: number;
};
