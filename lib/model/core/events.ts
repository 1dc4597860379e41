import type { Token } from './token';

/** Everything that can happen in a lab, as recorded in the `events` table. */
export const EVENT_KINDS = [
  'lease_acquired',
  'lease_renewed',
  'lease_released',
  'lease_expired',
  'lease_lost',
  'write_sent',
  'write_accepted',
  'write_rejected',
  'pause_started',
  'pause_ended',
  'worker_started',
  'worker_stopped',
  'worker_crashed',
  'worker_restarted',
  /** A private lab was closed (idle too long): its workers were stopped, its history kept. */
  'lab_closed',
  /**
   * The delayed-packet labs' proxy (lib/os/packet-relay.ts), recorded by the server that runs it:
   * a worker's write statement caught and held, its bytes unsent; and those bytes sent on.
   */
  'packet_held',
  'packet_released',
  // The failover lab's cluster (lib/supervisor/failover/): steps of the whole lab, not of a holder.
  'pair_started',
  'replication_cut',
  'replication_healed',
  /** A holder's grant whose COMMIT waits for the standby (synchronous replication, the wire cut). */
  'grant_waiting',
  'primary_killed',
  'standby_promoted',
  'pair_stopped',
] as const;

/** Steps of the whole lab (its cluster's), drawn across every lane rather than on a holder's. */
export const LAB_WIDE_KINDS = [
  'pair_started',
  'replication_cut',
  'replication_healed',
  'grant_waiting',
  'primary_killed',
  'standby_promoted',
  'pair_stopped',
] as const satisfies readonly (typeof EVENT_KINDS)[number][];

export type LabWideKind = (typeof LAB_WIDE_KINDS)[number];

export function isLabWideKind(kind: string): kind is LabWideKind {
  return (LAB_WIDE_KINDS as readonly string[]).includes(kind);
}

export type EventKind = (typeof EVENT_KINDS)[number];

export type NewEvent = {
  /** Every event names its lab: there is no default one. */
  lab: string;
  actor: string;
  kind: EventKind;
  resource?: string;
  rowId?: number;
  token?: Token;
  storedToken?: Token | 0;
  outcome?: string;
  detail?: Record<string, unknown>;
};

/** An event as stored: `id` order is commit order, `at` is the database's clock. */
export type LabEvent = Required<Pick<NewEvent, 'lab' | 'actor' | 'kind'>> &
  Omit<NewEvent, 'lab' | 'actor' | 'kind'> & { id: number; at: Date };
