import type { LabMark } from './timeline';
import type { MarkText } from './timeline-layout-types';

/*
 * The words of a lab's own steps (the failover lab's cluster), drawn across the lanes: the title and
 * lines of the details panel, the list of marks and the export's <title>, and the label drawn at the
 * foot of the database lane with its shorter form for a crowded stretch.
 */

const clock = (ms: number): string => new Date(ms).toISOString().slice(11, 23);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const whole = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

export const labMarkKey = (mark: LabMark) => `lab:${mark.eventId}`;

type Said = { title: string; lines: string[]; label: string; short: string };

function said(mark: LabMark): Said {
  const d = mark.detail;
  switch (mark.kind) {
    case 'pair_started': {
      const sync = d.mode === 'sync';
      return {
        title: `A primary and a streaming standby started (${sync ? 'synchronous' : 'asynchronous'} replication)`,
        lines: [
          sync
            ? 'a COMMIT is acknowledged once the standby has it'
            : 'a COMMIT is acknowledged by the primary alone; the standby follows when it can',
        ],
        label: `pair started (${sync ? 'sync' : 'async'})`,
        short: '▶',
      };
    }
    case 'replication_cut': {
      const last = whole(d.primaryLastValue);
      const logged = whole(d.primaryLogCount);
      return {
        title: 'Replication to the standby cut',
        lines: [
          'the proxy between the primary and the standby stops passing the WAL',
          ...(last === undefined || logged === undefined
            ? []
            : [`at the cut the primary had handed out token ${last} and logged the sequence ${logged} values ahead`]),
        ],
        label: 'replication cut',
        short: 'cut',
      };
    }
    case 'replication_healed':
      return {
        title: 'Replication healed',
        lines: ['the standby catches up with the primary'],
        label: 'healed',
        short: 'healed',
      };
    case 'grant_waiting': {
      const waited = whole(d.waitedMs);
      return {
        title: `${mark.actor}'s grant waits for the standby`,
        lines: [
          `its COMMIT is not acknowledged${waited === undefined ? '' : ` after ${waited} ms`}: synchronous replication, the wire cut`,
        ],
        label: `${mark.actor} waits`,
        short: '…',
      };
    }
    case 'primary_killed': {
      const handed = whole(d.primaryLastValue);
      const ceiling = whole(d.standbyCeiling);
      return {
        title: 'The primary killed (SIGKILL)',
        lines:
          handed === undefined || ceiling === undefined
            ? []
            : [
                `the primary had handed out up to token ${handed}; the standby's sequence covers up to ${ceiling}`,
                ceiling >= handed
                  ? 'no token can be handed out twice'
                  : `tokens ${ceiling + 1} to ${handed} can be handed out again`,
              ],
        label: 'primary killed',
        short: '✕',
      };
    }
    case 'standby_promoted': {
      const row = d.row as { value?: unknown; lastToken?: unknown } | undefined;
      const lease = d.lease as { holder?: unknown; token?: unknown } | null | undefined;
      return {
        title: 'The standby promoted: it takes the writes now',
        lines: [
          ...(row ? [`its row holds ${JSON.stringify(text(row.value) ?? '')} with token ${whole(row.lastToken)}`] : []),
          lease ? `its lease is ${text(lease.holder)}'s, token ${whole(lease.token)}` : 'it holds no lease',
        ],
        label: 'standby promoted',
        short: '↑',
      };
    }
    case 'pair_stopped':
      return {
        title: 'The pair stopped',
        lines: ['its servers and their directories are gone; this history stays in the app’s database'],
        label: 'pair stopped',
        short: '■',
      };
  }
}

export function labMarkWords(mark: LabMark): MarkText {
  const { title, lines } = said(mark);
  return {
    key: labMarkKey(mark),
    kind: 'lab',
    lane: 'database',
    eventId: mark.eventId,
    at: mark.at,
    title,
    lines: [`at ${clock(mark.at)} (database time)`, ...lines],
    flagged: false,
  };
}

/** What is drawn at the mark's foot, and the shorter label for a crowded stretch. */
export function labMarkLabel(mark: LabMark): { label: string; short: string } {
  const { label, short } = said(mark);
  return { label, short };
}
