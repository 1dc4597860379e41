import type { Lane, LeaseBar, PauseBlock, RowChange, Timeline, WriteMark } from '@/lib/model/timeline';
import { clock, seconds } from '../format';

/** Every mark the timeline draws, with the words a screen reader and the details panel use. */
export type MarkInfo = { key: string; title: string; lines: string[] };

export const leaseKey = (holder: string, bar: LeaseBar) => `lease:${holder}:${bar.grantEventId}`;
export const beliefKey = (holder: string, token: number, from: number) => `belief:${holder}:${token}:${from}`;
export const pauseKey = (pause: PauseBlock) => `pause:${pause.eventId}`;
export const writeKey = (write: WriteMark) => `write:${write.eventId}`;
export const rowKey = (change: RowChange) => `row:${change.eventId}`;

export function describeMarks(timeline: Timeline): Map<string, MarkInfo> {
  const marks = new Map<string, MarkInfo>();
  for (const lane of timeline.lanes) for (const [key, info] of describeLane(lane)) marks.set(key, info);
  for (const [key, info] of describeRow(timeline.row)) marks.set(key, info);
  return marks;
}

/** The database lane's marks. */
export function describeRow(changes: RowChange[]): Map<string, MarkInfo> {
  const marks = new Map<string, MarkInfo>();
  const add = (info: MarkInfo) => marks.set(info.key, info);
  changes.forEach((change, i) => {
    const next = changes[i + 1];
    add({
      key: rowKey(change),
      title: `The row holds ${JSON.stringify(change.value)} with token ${change.token}`,
      lines: [
        `written by ${change.by} at ${clock(change.at)}`,
        next ? `until ${next.by} wrote ${JSON.stringify(next.value)} with token ${next.token}` : 'still there now',
        ...(next && next.token < change.token
          ? [`the token went back from ${change.token} to ${next.token}: a lost update`]
          : []),
      ],
    });
  });
  return marks;
}

/** One holder's marks. */
export function describeLane(lane: Lane): Map<string, MarkInfo> {
  const marks = new Map<string, MarkInfo>();
  const add = (info: MarkInfo) => marks.set(info.key, info);
  const who = lane.holder;
  for (const bar of lane.leases) {
    add({
      key: leaseKey(who, bar),
      title: `${who}'s lease, token ${bar.token}`,
      lines: [
        `granted at ${clock(bar.from)} (database time)`,
        `${bar.end === 'held' ? 'runs out' : bar.end === 'released' ? 'released' : 'ran out'} at ${clock(bar.to)}${bar.end === 'crashed' ? ' (the holder crashed)' : ''}`,
        `renewed ${bar.renewals} time${bar.renewals === 1 ? '' : 's'}`,
      ],
    });
  }
  for (const band of lane.beliefs) {
    add({
      key: beliefKey(who, band.token, band.from),
      title: `${who} believes it holds token ${band.token}, but its lease ran out`,
      lines: [
        `the lease ran out at ${clock(band.from)} by the database's clock`,
        band.open
          ? `${who} has not found out yet`
          : `${who} found out at ${clock(band.to)}${band.reason ? `: ${band.reason}` : ''}`,
      ],
    });
  }
  for (const pause of lane.pauses) {
    add({
      key: pauseKey(pause),
      title: `${who} frozen${pause.trigger === 'critical-window' ? ' in its critical window' : ''}`,
      lines: [
        `from ${clock(pause.from)}${pause.open ? ', still frozen' : ` to ${clock(pause.to)} (${seconds(pause.to - pause.from)})`}`,
        ...(pause.belief ? [`it believed: "${pause.belief}"`] : []),
        'no timers, no renewals, no I/O ran in the process meanwhile',
      ],
    });
  }
  for (const write of lane.writes) {
    add({
      key: writeKey(write),
      title:
        write.outcome === 'accepted'
          ? `${who}'s write ${JSON.stringify(write.value)} with token ${write.token}: accepted`
          : `${who}'s write ${JSON.stringify(write.value)} with token ${write.token}: rejected as stale`,
      lines: [
        `${write.sentAt ? `sent at ${clock(write.sentAt)}, ` : ''}decided at ${clock(write.at)} (database time)`,
        write.outcome === 'accepted'
          ? 'UPDATE … RETURNING last_token: 1 row, the row now holds this token'
          : `UPDATE … WHERE last_token <= ${write.token}: 0 rows, the row holds token ${write.storedToken}`,
        ...(write.path ? [`write path: ${write.path}`] : []),
      ],
    });
  }
  for (const life of lane.life) {
    add({
      key: `life:${life.eventId}`,
      title: `${who} ${life.kind}`,
      lines: [`at ${clock(life.at)}`, ...(life.detail ? [life.detail] : [])],
    });
  }
  for (const loss of lane.losses) {
    add({
      key: `loss:${loss.eventId}`,
      title: `${who} found out it lost its lease${loss.token ? ` (token ${loss.token})` : ''}`,
      lines: [`at ${clock(loss.at)}`, loss.reason],
    });
  }
  return marks;
}
