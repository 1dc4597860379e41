'use client';

import { useId, useMemo } from 'react';
import { runsOnFailoverPair } from '@/lib/labs/traits';
import {
  failoverServersAt,
  type NotRecorded,
  type ServerAt,
  type FailoverServersAt as ServersAt,
  type ServersAtOptions,
} from '@/lib/model/failover/failover-servers-at';
import { useLabStore } from '../lab-store-provider';
import { useViewEvents, useViewMoment, useViewMomentLabel } from '../replay/use-replay-view';
import { ServersTable } from './failover-servers';

const isNotRecorded = (value: unknown): value is NotRecorded =>
  typeof value === 'object' && value !== null && 'notRecorded' in value;

const NOT_RECORDED = '— (not recorded)';

function leaseWords(lease: ServerAt['lease'], running: boolean): string {
  if (isNotRecorded(lease)) return NOT_RECORDED;
  if (lease === 'none') return 'none';
  const runs = !running
    ? ' (its lease row when it went down)'
    : lease.runs === undefined
      ? ''
      : lease.runs
        ? ', running'
        : ', ran out';
  return `${lease.holder}, token ${lease.token}${runs}`;
}

function sequenceWords(sequence: ServerAt['sequence']): string {
  if (isNotRecorded(sequence)) return NOT_RECORDED;
  const parts = [
    sequence.lastValue === undefined
      ? sequence.coversUpTo === undefined
        ? 'none handed out'
        : undefined
      : `last ${sequence.lastValue}${sequence.loggedAhead === undefined ? '' : `, ${sequence.loggedAhead} logged ahead`}`,
    sequence.coversUpTo === undefined ? undefined : `covers up to ${sequence.coversUpTo}`,
  ];
  return parts.filter(Boolean).join(', ');
}

function replicationWords(view: ServersAt): string {
  const mode =
    view.mode === undefined
      ? 'Replication: its mode is not recorded in these events'
      : `${view.mode === 'sync' ? 'Synchronous' : 'Asynchronous'} replication`;
  const cut = view.replicationCut === undefined ? '' : view.replicationCut ? ', cut' : ', connected';
  const down = view.pair === 'running' && view.servers[0]?.running === false ? '; the primary is down' : '';
  const promoted = view.promoted ? '; the standby was promoted' : '';
  const stopped = view.pair === 'stopped' ? '; the pair was stopped' : '';
  return `${mode}${cut}${down}${promoted}${stopped}.`;
}

/**
 * The failover pair's servers at the moment the lab's views show (a replay's moment, an explored
 * path's last step), rebuilt from the events up to it (lib/model/failover/failover-servers-at.ts):
 * nothing is asked of a server, and a cell no event records says so.
 */
export function FailoverServersAt(props: { options?: ServersAtOptions; moment?: string }) {
  const kind = useLabStore((s) => s.kind);
  return runsOnFailoverPair(kind) ? <ServersAtMoment {...props} /> : null;
}

/** `moment` names the step shown, at the end of the events; a moment before it names itself. */
function ServersAtMoment({ options, moment }: { options?: ServersAtOptions; moment?: string }) {
  const events = useViewEvents();
  const replayAt = useViewMoment();
  const label = useViewMomentLabel();
  const headingId = useId();
  const end = useLabStore((s) => s.events.reduce((last, e) => Math.max(last, e.at), Number.NEGATIVE_INFINITY));
  const at = replayAt ?? end;
  const view = useMemo(() => failoverServersAt(events, at, options), [events, at, options]);
  // `moment` (an explored path's "after step N") is the end of its events; a moment scrubbed back names itself.
  const when = (replayAt === undefined || replayAt >= end ? moment : undefined) ?? label ?? 'as at the last event';
  const notes = [
    ...new Set(
      view.servers.flatMap((server) =>
        [server.row, server.lease, server.sequence].flatMap((cell) =>
          isNotRecorded(cell) ? [`${server.role}: ${cell.notRecorded}`] : [],
        ),
      ),
    ),
  ];
  return (
    <section
      aria-labelledby={headingId}
      className="space-y-2 rounded-lg border border-slate-200 p-3 dark:border-slate-800"
    >
      <h2 id={headingId} className="text-lg font-semibold">
        The pair’s servers, {when}
      </h2>
      <p className="text-sm text-slate-700 dark:text-slate-300">
        Rebuilt from the events up to this moment, not asked of the servers; a lease says only whether it still ran.
      </p>
      {view.pair === 'none' ? (
        <p>No pair runs at this moment: it has not started.</p>
      ) : (
        <>
          <p>{replicationWords(view)}</p>
          <ServersTable
            caption={`Each server of the pair, ${when}`}
            servers={view.servers.map((server) => ({
              role: server.role,
              running: server.running,
              row: isNotRecorded(server.row) ? NOT_RECORDED : `"${server.row.value}", ${server.row.lastToken}`,
              lease: leaseWords(server.lease, server.running),
              sequence: sequenceWords(server.sequence),
            }))}
          />
          {notes.length > 0 ? (
            <ul className="list-disc pl-6 text-sm" aria-label="Not recorded">
              {notes.map((note) => (
                <li key={note}>Not recorded, {note}.</li>
              ))}
            </ul>
          ) : null}
        </>
      )}
      <p>
        Holders:{' '}
        {view.holders.length === 0
          ? 'none has asked yet'
          : view.holders
              .map(
                (h) => `${h.name} ${h.token ? `token ${h.token}` : 'no token'}${h.waiting ? ' (grant waiting)' : ''}`,
              )
              .join(' · ')}
      </p>
    </section>
  );
}
