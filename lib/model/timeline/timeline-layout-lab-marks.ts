import type { LabMark } from './timeline';
import { keptLabMark } from './timeline-layout-kept';
import { laneGeometry, pointsIn, type Scale, textWidth } from './timeline-layout-marks';
import type { LaidOutMark, Shape } from './timeline-layout-types';
import { flag } from './timeline-layout-words';

/*
 * The lab's own steps (the failover lab's cut, heal, kill and promotion): a line across every lane
 * at the moment, and its label at the foot of the database lane, under the row, shortened where the
 * next step leaves no room. Part of the one layout: every painter draws them as it draws the rest.
 */

export function layoutLabMarks(
  steps: readonly LabMark[],
  where: { top: number; rowTop: number },
  s: Scale,
  out: LaidOutMark[],
): void {
  if (steps.length === 0) return;
  const m = s.metrics;
  const g = laneGeometry(m);
  const px = m.labelPx;
  const bottom = where.rowTop + m.rowLaneH;
  const labelTop = where.rowTop + g.rowBarY + g.rowBarH;
  const baseline = bottom - Math.max(2, (bottom - labelTop - px) / 2) - px * 0.2;
  const [first, end] = pointsIn(steps, s.from, s.to);
  for (let i = first; i < end; i++) {
    const step = steps[i] as LabMark;
    const kept = keptLabMark(step);
    const x = s.x(step.at);
    const next = steps[i + 1];
    const room = (next ? s.x(next.at) : s.right) - x - 8;
    const label =
      textWidth(kept.label, px) <= room ? kept.label : textWidth(kept.short, px) <= room ? kept.short : undefined;
    const shapes: Shape[] = [{ type: 'line', x1: x, x2: x, y1: where.top, y2: bottom, stroke: 'muted' }];
    if (label) {
      shapes.push({
        type: 'text',
        x: x + 4,
        y: baseline,
        text: label,
        px,
        weight: 600,
        anchor: 'start',
        fill: 'text',
        role: 'step-label',
      });
    }
    const words = flag(kept.words, s.flagged);
    if (words.flagged) {
      shapes.push({
        type: 'text',
        x,
        y: labelTop - 2,
        text: '⚠',
        px: m.glyphPx + 2,
        weight: 900,
        anchor: 'middle',
        fill: 'flag',
        role: 'flag',
      });
    }
    const box = { x: x - 3, y: labelTop, w: 7 + (label ? textWidth(label, px) : 0), h: bottom - labelTop };
    const mark: LaidOutMark = { ...words, box, shapes };
    out.push(mark);
  }
}
