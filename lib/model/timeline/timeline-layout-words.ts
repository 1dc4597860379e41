import { clockTime } from '../core/clock-time';
import type {
  LabMark,
  Lane,
  LeaseBar,
  LifeMark,
  LossMark,
  PauseBlock,
  RowChange,
  Timeline,
  WriteMark,
} from './timeline';
import { labMarkKey, labMarkWords } from './timeline-lab-words';
import type { MarkText } from './timeline-layout-types';
import { writeKey, writeWords } from './timeline-write-words';

export { writeKey, writeLabel, writeWords } from './timeline-write-words';

/*
 * The words of every mark, written once: the screen's details panel, its list of marks (keyboard,
 * screen readers), the export's <title>s and the labels drawn on the bars all come from here.
 */

/** Database time as a person reads it on a slide: 10:00:03.512 (UTC). */
export const clock = clockTime;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** A holder that still acts on a lease it lost: the bar's label, and the start of the mark's title. */
export const believesItHolds = (token: number): string => `believes it holds token ${token}`;

export const LIFE_GLYPH = { started: '▶', restarted: '↻', crashed: '✕', stopped: '■' } as const;

export const leaseKey = (holder: string, bar: LeaseBar) => `lease:${holder}:${bar.grantEventId}`;
export const beliefKey = (holder: string, token: number, from: number) => `belief:${holder}:${token}:${from}`;
export const pauseKey = (pause: PauseBlock) => `pause:${pause.eventId}`;
export const rowKey = (change: RowChange) => `row:${change.eventId}`;
export const lifeKey = (life: LifeMark) => `life:${life.eventId}`;
export const lossKey = (loss: LossMark) => `loss:${loss.eventId}`;

/** The event a mark is looked up for: which holder recorded what, and its token. */
export type MarkEvent = { id: number; kind: string; actor: string; token?: number };

const lastBefore = <T>(
  items: readonly T[],
  id: number,
  idOf: (item: T) => number,
  ok: (item: T) => boolean = () => true,
) => items.findLast((item) => idOf(item) < id && ok(item));

/**
 * The key of the timeline's mark an event drew, or ended (as the layout keys it, so that a caller can
 * select it), or undefined when it drew none. A grant draws its lease bar, and the expiry or release
 * of that lease ends the same bar; a freeze draws its block, which the wake-up ends; a write, a
 * lost lease, a worker's start, stop, crash or restart and a lab-wide step each draw a mark of their
 * own. A renewal, a sent write and a lab's close draw none.
 */
export function markKeyOfEvent(timeline: Timeline, event: MarkEvent): string | undefined {
  const lab = timeline.labMarks.find((mark) => mark.eventId === event.id);
  if (lab) return labMarkKey(lab);
  const lane = timeline.lanes.find((l) => l.holder === event.actor);
  if (!lane) return undefined;
  const byId = <T extends { eventId: number }>(items: readonly T[]) => items.find((item) => item.eventId === event.id);
  let key: string | undefined;
  switch (event.kind) {
    case 'lease_acquired': {
      const bar = lane.leases.find((b) => b.grantEventId === event.id);
      key = bar && leaseKey(lane.holder, bar);
      break;
    }
    case 'lease_expired':
    case 'lease_released': {
      const sameToken = (b: LeaseBar) => event.token === undefined || b.token === event.token;
      const bar = lastBefore(lane.leases, event.id, (b) => b.grantEventId, sameToken);
      key = bar && leaseKey(lane.holder, bar);
      break;
    }
    case 'pause_started': {
      const pause = byId(lane.pauses);
      key = pause && pauseKey(pause);
      break;
    }
    case 'pause_ended': {
      const pause = lastBefore(lane.pauses, event.id, (p) => p.eventId);
      key = pause && pauseKey(pause);
      break;
    }
    case 'write_accepted':
    case 'write_rejected': {
      const write = byId(lane.writes);
      key = write && writeKey(write);
      break;
    }
    case 'lease_lost': {
      const loss = byId(lane.losses);
      key = loss && lossKey(loss);
      break;
    }
    default: {
      const life = byId(lane.life);
      key = life && lifeKey(life);
    }
  }
  return key;
}

/** The labels drawn on the marks (a bar's label, and the shorter one for a narrow bar). */
export const leaseLabel = (bar: LeaseBar) => ({ label: `token ${bar.token}`, short: String(bar.token) });
export const beliefLabel = (token: number) => ({ label: believesItHolds(token), short: `≠ ${token}` });
// Words, not ⏸: many fonts (a slide's, a canvas's on Linux) lack the glyph, and the hatch already marks a freeze.
export const pauseLabel = (pause: PauseBlock) => ({
  label: pause.trigger === 'critical-window' ? 'frozen before its write' : 'frozen',
  short: '‖',
});
export const rowLabel = (change: RowChange, next: RowChange | undefined) => ({
  label: `${change.value} · token ${change.token}${
    next === undefined || next.token >= change.token
      ? ''
      : next.restored
        ? ' (lost in the failover)'
        : ' (overwritten by an older token)'
  }`,
  short: `${change.value} · ${change.token}`,
});

type Flagged = ReadonlySet<number>;

/** The words of a mark the checker named in a violation say so. */
export function flag(words: MarkText, flagged: Flagged): MarkText {
  return words.eventId !== undefined && flagged.has(words.eventId) ? { ...words, flagged: true } : words;
}

export function leaseWords(who: string, bar: LeaseBar): MarkText {
  const ends = bar.end === 'held' ? 'runs out' : bar.end === 'released' ? 'released' : 'ran out';
  return {
    key: leaseKey(who, bar),
    kind: 'lease',
    lane: who,
    eventId: bar.grantEventId,
    at: bar.from,
    title: `${who}'s lease, token ${bar.token}`,
    lines: [
      `granted at ${clock(bar.from)} (database time)`,
      `${ends} at ${clock(bar.to)}${bar.end === 'crashed' ? ' (the holder crashed)' : bar.end === 'stopped' ? ' (the holder was stopped)' : ''}`,
      `renewed ${bar.renewals} time${bar.renewals === 1 ? '' : 's'}`,
    ],
    flagged: false,
  };
}

export function beliefWords(who: string, band: Lane['beliefs'][number]): MarkText {
  return {
    key: beliefKey(who, band.token, band.from),
    kind: 'belief',
    lane: who,
    at: band.from,
    title: `${who} ${believesItHolds(band.token)}, but its lease ran out`,
    lines: [
      `the lease ran out at ${clock(band.from)} by the database's clock`,
      band.open
        ? `${who} has not found out yet`
        : `${who} found out at ${clock(band.to)}${band.reason ? `: ${band.reason}` : ''}`,
    ],
    flagged: false,
  };
}

export function pauseWords(who: string, pause: PauseBlock): MarkText {
  return {
    key: pauseKey(pause),
    kind: 'pause',
    lane: who,
    eventId: pause.eventId,
    at: pause.from,
    title: `${who} frozen${pause.trigger === 'critical-window' ? ' in its critical window' : ''}`,
    lines: [
      `from ${clock(pause.from)}${pause.open ? ', still frozen' : ` to ${clock(pause.to)} (${seconds(pause.to - pause.from)})`}`,
      ...(pause.belief ? [`it believed: "${pause.belief}"`] : []),
      'no timers, no renewals, no I/O ran in the process meanwhile',
    ],
    flagged: false,
  };
}

export function lifeWords(who: string, life: LifeMark): MarkText {
  return {
    key: lifeKey(life),
    kind: 'life',
    lane: who,
    eventId: life.eventId,
    at: life.at,
    title: `${who} ${life.kind}`,
    lines: [`at ${clock(life.at)}`, ...(life.detail ? [life.detail] : [])],
    flagged: false,
  };
}

export function lossWords(who: string, loss: LossMark): MarkText {
  return {
    key: lossKey(loss),
    kind: 'loss',
    lane: who,
    eventId: loss.eventId,
    at: loss.at,
    title: `${who} found out it lost its lease${loss.token ? ` (token ${loss.token})` : ''}`,
    lines: [`at ${clock(loss.at)}`, loss.reason],
    flagged: false,
  };
}

/** A change of the row, drawn (and described) up to the next one. */
export function rowWords(change: RowChange, next: RowChange | undefined): MarkText {
  return {
    key: rowKey(change),
    kind: 'row',
    lane: 'database',
    eventId: change.eventId,
    at: change.at,
    title: `The row holds ${JSON.stringify(change.value)} with token ${change.token}`,
    lines: [
      change.restored
        ? `as ${change.by} came up holding it at ${clock(change.at)}`
        : `written by ${change.by} at ${clock(change.at)}`,
      next
        ? next.restored
          ? `until ${next.by} came up holding ${JSON.stringify(next.value)} with token ${next.token}`
          : `until ${next.by} wrote ${JSON.stringify(next.value)} with token ${next.token}`
        : 'still there now',
      ...(next && next.token < change.token
        ? [
            next.restored
              ? `the token went back from ${change.token} to ${next.token}: an acknowledged write lost in the failover`
              : `the token went back from ${change.token} to ${next.token}: a lost update`,
          ]
        : []),
    ],
    flagged: false,
  };
}

/** One mark in words, flagged when the checker named its event (written afresh: the layout keeps its own). */
export const describeLease = (who: string, bar: LeaseBar, flagged: Flagged) => flag(leaseWords(who, bar), flagged);
export const describeBelief = (who: string, band: Lane['beliefs'][number]) => beliefWords(who, band);
export const describePause = (who: string, pause: PauseBlock, flagged: Flagged) =>
  flag(pauseWords(who, pause), flagged);
export const describeWrite = (who: string, write: WriteMark, flagged: Flagged) => flag(writeWords(who, write), flagged);
export const describeLife = (who: string, life: LifeMark, flagged: Flagged) => flag(lifeWords(who, life), flagged);
export const describeLoss = (who: string, loss: LossMark, flagged: Flagged) => flag(lossWords(who, loss), flagged);
export const describeRowChange = (change: RowChange, next: RowChange | undefined, flagged: Flagged) =>
  flag(rowWords(change, next), flagged);

export const describeLabMark = (mark: LabMark, flagged: Flagged) => flag(labMarkWords(mark), flagged);

/** The database lane in words: the row's changes and the lab's steps, by time (a change first at one instant). */
export function describeDatabaseLane(row: readonly RowChange[], steps: readonly LabMark[], flagged: Flagged) {
  const out: MarkText[] = [];
  let j = 0;
  row.forEach((change, i) => {
    for (; j < steps.length && (steps[j] as LabMark).at < change.at; j++) {
      out.push(describeLabMark(steps[j] as LabMark, flagged));
    }
    out.push(describeRowChange(change, row[i + 1], flagged));
  });
  for (; j < steps.length; j++) out.push(describeLabMark(steps[j] as LabMark, flagged));
  return out;
}

/** A lane's marks in words, by time (marks of one instant in drawing order), in one merge of its sorted lists. */
export function describeLaneByTime(lane: Lane, flagged: Flagged): MarkText[] {
  // Written afresh, not kept (timeline-layout-kept.ts): the whole timeline's words are the caller's to keep.
  const who = lane.holder;
  const lists: MarkText[][] = [
    lane.leases.map((bar) => describeLease(who, bar, flagged)),
    lane.beliefs.map((band) => describeBelief(who, band)),
    lane.pauses.map((pause) => describePause(who, pause, flagged)),
    lane.writes.map((write) => describeWrite(who, write, flagged)),
    lane.life.map((life) => describeLife(who, life, flagged)),
    lane.losses.map((loss) => describeLoss(who, loss, flagged)),
  ];
  const next = lists.map(() => 0);
  const out: MarkText[] = [];
  const total = lists.reduce((sum, list) => sum + list.length, 0);
  while (out.length < total) {
    let best = -1;
    for (let k = 0; k < lists.length; k++) {
      const candidate = lists[k]?.[next[k] ?? 0];
      if (candidate && (best === -1 || candidate.at < (lists[best]?.[next[best] ?? 0]?.at ?? Infinity))) best = k;
    }
    const list = lists[best] ?? [];
    const index = next[best] ?? 0;
    const mark = list[index];
    if (mark) out.push(mark);
    next[best] = index + 1;
  }
  return out;
}
