import { el, textNode, titleNode } from './svg-markup';
import type { Lane, RowChange } from './timeline';
import type { Palette } from './timeline-svg-theme';

/* One holder's lane, and the database lane, as SVG markup: the shapes of components/lab/timeline. */

/** Where a database time is drawn: already clamped to the track, so a bar cut by the window ends at its edge. */
export type Scale = (t: number) => number;

/** Width of a character of 12 px text, to decide whether a label fits (no font metrics in a pure module). */
const CHAR_W = 6.6;
const LIFE_GLYPH = { started: '▶', restarted: '↻', crashed: '✕', stopped: '■' } as const;
const FONT_PX = 12;

type Bar = {
  x1: number;
  x2: number;
  y: number;
  h: number;
  fill: string;
  stroke: string;
  dashed?: boolean;
  label: string;
  /** A shorter label for a narrow bar. */
  short?: string;
};

/** A bar with its label inside, shortened (or left out) when the bar is too narrow to hold it. */
function bar(b: Bar, p: Palette): string {
  const room = b.x2 - b.x1 - 10;
  const fits = (s: string) => [...s].length * CHAR_W <= room;
  const label = fits(b.label) ? b.label : b.short && fits(b.short) ? b.short : undefined;
  const rect = el('rect', {
    x: b.x1,
    y: b.y,
    width: Math.max(3, b.x2 - b.x1),
    height: b.h,
    rx: 3,
    fill: b.fill,
    stroke: b.stroke,
    'stroke-width': 1.5,
    'stroke-dasharray': b.dashed ? '5 3' : undefined,
  });
  const text = label
    ? textNode({ x: b.x1 + 5, y: b.y + b.h / 2 + 4.5, fill: p.text, 'font-size': FONT_PX, 'font-weight': 600 }, label)
    : '';
  return rect + text;
}

/** A mark: a group with its explanation as the first child, tagged with the event it comes from. */
const mark = (kind: string, eventId: number, title: string, ...body: string[]) =>
  el('g', { 'data-mark': kind, 'data-event-id': eventId }, titleNode(title), ...body);

export function laneSvg(lane: Lane, top: number, x: Scale, p: Palette): string {
  const who = lane.holder;
  const barY = top + 8;
  const pauseY = top + 32;
  const writeY = top + 60;
  const parts: string[] = [];
  for (const lease of lane.leases) {
    const body = bar(
      {
        x1: x(lease.from),
        x2: x(lease.to),
        y: barY,
        h: 20,
        fill: p.leaseFill,
        stroke: p.leaseStroke,
        label: `token ${lease.token}`,
        short: String(lease.token),
      },
      p,
    );
    const renewed = `renewed ${lease.renewals} time${lease.renewals === 1 ? '' : 's'}`;
    parts.push(
      mark('lease', lease.grantEventId, `${who}'s lease, token ${lease.token} (${lease.end}, ${renewed})`, body),
    );
  }
  for (const band of lane.beliefs) {
    const body = bar(
      {
        x1: x(band.from),
        x2: x(band.to),
        y: barY,
        h: 20,
        fill: 'url(#hatch-belief)',
        stroke: p.beliefStroke,
        dashed: true,
        label: `believes it holds token ${band.token}`,
        short: `≠ ${band.token}`,
      },
      p,
    );
    const found = band.open ? 'it has not found out yet' : `it found out${band.reason ? `: ${band.reason}` : ''}`;
    const title = `${who} believed it held token ${band.token}, but its lease had run out; ${found}`;
    parts.push(el('g', { 'data-mark': 'belief' }, titleNode(title), body));
  }
  for (const pause of lane.pauses) {
    const critical = pause.trigger === 'critical-window';
    const body = bar(
      {
        x1: x(pause.from),
        x2: x(pause.to),
        y: pauseY,
        h: 16,
        fill: 'url(#hatch-pause)',
        stroke: p.pauseStroke,
        // Words, not the app's ⏸: a slide's font may not have the glyph, and the hatch already marks it.
        label: critical ? 'frozen before its write' : 'frozen',
      },
      p,
    );
    const believed = pause.belief ? `; it believed: "${pause.belief}"` : '';
    parts.push(
      mark('pause', pause.eventId, `${who} frozen${critical ? ' in its critical window' : ''}${believed}`, body),
    );
  }
  lane.writes.forEach((write, i) => {
    const cx = x(write.at);
    const accepted = write.outcome === 'accepted';
    const label = accepted ? `${write.value} · ${write.token}` : `${write.token} vs ${write.storedToken ?? '?'}`;
    // A label only where it does not run into the next mark; a rejection always keeps its tokens.
    const next = lane.writes[i + 1];
    const room = next ? x(next.at) - cx - 24 : Number.POSITIVE_INFINITY;
    const shown = !accepted || [...label].length * CHAR_W <= room;
    const title = accepted
      ? `${who}'s write ${JSON.stringify(write.value)} with token ${write.token}: accepted`
      : `${who}'s write ${JSON.stringify(write.value)} with token ${write.token}: rejected as stale, the row holds token ${write.storedToken ?? '?'}`;
    parts.push(
      mark(
        `write-${write.outcome}`,
        write.eventId,
        title,
        el('circle', { cx, cy: writeY, r: 9, fill: accepted ? p.accepted : p.rejected }),
        textNode(
          { x: cx, y: writeY + 4.5, 'text-anchor': 'middle', fill: p.onMark, 'font-size': 13, 'font-weight': 700 },
          accepted ? '✓' : '✗',
        ),
        shown ? textNode({ x: cx + 12, y: writeY + 5, fill: p.text, 'font-size': FONT_PX }, label) : '',
      ),
    );
  });
  for (const life of lane.life) {
    const glyph = textNode(
      { x: x(life.at), y: pauseY + 13, 'text-anchor': 'middle', fill: p.text, 'font-size': 14, 'font-weight': 700 },
      LIFE_GLYPH[life.kind],
    );
    parts.push(mark('life', life.eventId, `${who} ${life.kind}${life.detail ? `: ${life.detail}` : ''}`, glyph));
  }
  for (const loss of lane.losses) {
    const bang = textNode(
      { x: x(loss.at), y: barY + 15, 'text-anchor': 'middle', fill: p.loss, 'font-size': 16, 'font-weight': 900 },
      '!',
    );
    const token = loss.token === undefined ? '' : ` (token ${loss.token})`;
    parts.push(mark('loss', loss.eventId, `${who} found out it lost its lease${token}: ${loss.reason}`, bang));
  }
  return el('g', { 'data-lane': who }, ...parts);
}

/** The database lane: the row's value and last_token as they changed, the last one drawn until `until`. */
export function rowLaneSvg(changes: RowChange[], top: number, x: Scale, until: number, p: Palette): string {
  const parts = changes.map((change, i) => {
    const next = changes[i + 1];
    const wentBack = next !== undefined && next.token < change.token;
    const x1 = x(change.at);
    const body = bar(
      {
        x1,
        x2: next ? x(next.at) : Math.max(x(until), x1 + 4),
        y: top + 12,
        h: 28,
        fill: wentBack ? p.wentBackFill : p.rowFill,
        stroke: wentBack ? p.wentBackStroke : p.rowStroke,
        label: `${change.value} · token ${change.token}${wentBack ? ' (overwritten by an older token)' : ''}`,
        short: `${change.value} · ${change.token}`,
      },
      p,
    );
    const title = `The row holds ${JSON.stringify(change.value)} with token ${change.token}, written by ${change.by}${wentBack ? `; then overwritten with the older token ${next.token}: a lost update` : ''}`;
    return mark('row', change.eventId, title, body);
  });
  return el('g', { 'data-lane': 'database' }, ...parts);
}
