/*
 * The failover lab's story as steps: what each client was told, and what each server holds. The
 * story and the lab's controls say what happened in these words; lib/model/failover/failover-events.ts
 * records them as the lab's events, which the one checker judges and the one timeline draws.
 * Tokens are decimal strings here, as the pair's PostgreSQL hands them over.
 */

export type FailoverServerRole = 'primary' | 'promoted standby';

export type FailoverStep =
  | { kind: 'pair_started'; mode: 'async' | 'sync' }
  | {
      kind: 'grant';
      holder: string;
      resource: string;
      token: string;
      server: FailoverServerRole;
      /** When the lease runs out, by the server's clock (ISO). */
      expiresAt?: string;
    }
  | { kind: 'grant_waiting'; holder: string; waitedMs: number }
  | {
      kind: 'write';
      holder: string;
      token: string;
      value: string;
      server: FailoverServerRole;
      accepted: boolean;
      /** The row's token when the write was rejected. */
      rowToken?: string;
    }
  | {
      kind: 'replication_cut';
      /** The last token the primary handed out, and how many more before it logs the sequence again. */
      sequence?: { primaryLastValue: string; primaryLogCount: number };
    }
  | {
      kind: 'replication_healed';
      /**
       * The explorer's catch-up (lib/model/explore/failover-story.ts): the standby replayed everything
       * the primary had, the grants and accepted writes it lacked, and the value its sequence's last
       * record now covers. The live lab's heal only lets replication run again: what ships, no event says.
       */
      caughtUp?: { grants: number; writes: number; standbyCeiling?: string };
    }
  | {
      kind: 'primary_killed';
      /**
       * The last token the primary handed out, and the value the standby's last replayed sequence
       * record covers: promoted, the standby goes on above it.
       */
      sequence?: { primaryLastValue: string; standbyCeiling: string };
    }
  | {
      kind: 'standby_promoted';
      row: { value: string; lastToken: string };
      lease: { resource: string; holder: string; token: string } | undefined;
      /**
       * An explored promotion (the primary's death and the promotion in one step): the last token the
       * primary handed out and the value the standby's last replayed sequence record covers. The live
       * lab records them at the kill (primary_killed).
       */
      sequence?: { primaryLastValue: string; standbyCeiling: string };
    }
  | { kind: 'pair_stopped' };
