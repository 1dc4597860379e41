/*
 * Where a lane's write labels go, so that none overprints another label or another write's mark:
 * a label is drawn right of its write's circle, and only where it ends before the next write's.
 * An accepted write whose label has no room keeps its ✓ and loses its label (as a busy lane always
 * drew it). A rejection's label that has no room is not dropped: the run of writes from it on is
 * summed up in one label after the run's last write ("✗×5 vs 9"), the run growing until that label
 * fits. A label that would run past the track's right edge (where it is cut) goes left of its write
 * when there is room there: a counterexample's deciding write is the last one, at the edge. Pure:
 * positions in px, widths estimated from the characters, as the rest of the layout.
 */

/** A write as its label's placement sees it: where its mark's centre is drawn, and what it would say. */
export type WriteToLabel = {
  x: number;
  label: string;
  accepted: boolean;
  /** The row's token a rejection was refused against (said once for a run refused against the same). */
  storedToken?: number | undefined;
};

export type PlacedLabel = {
  text: string;
  /** Left edge of the text, and its estimated width. */
  x: number;
  width: number;
  /**
   * The writes it speaks for, as indexes: from `first` to `last`, drawn after `last`'s mark, or before
   * `first`'s when it would run past the track's right edge.
   */
  first: number;
  last: number;
};

export type LabelGeometry = {
  /** The radius of a write's mark. */
  r: number;
  /** The labels' font size. */
  px: number;
  /** Room kept between a label and a mark on either side of it. */
  gap: number;
  /** Where the next write after these is drawn (beyond the window): the last label ends before it. */
  nextX?: number | undefined;
  /** The track's edges: a label past either is cut. */
  left?: number | undefined;
  right?: number | undefined;
};

/** Width of a character as a share of the font size: no font metrics in a pure module. */
const CHAR_EM = 0.55;
/** ✓ and ✗ come from a symbol font, wider than a letter. */
const SYMBOL_EXTRA_EM = 0.45;

/** The estimated width of a label at `px`. */
export function labelWidth(text: string, px: number): number {
  let symbols = 0;
  for (const c of text) if (c === '✓' || c === '✗') symbols += 1;
  return (text.length * CHAR_EM + symbols * SYMBOL_EXTRA_EM) * px;
}

/** A run of writes in one label: how many were refused (and against which token), and how many accepted. */
export function runLabel(run: readonly WriteToLabel[]): string {
  const refused = run.filter((w) => !w.accepted);
  const accepted = run.length - refused.length;
  const stored = new Set(refused.map((w) => w.storedToken));
  const [only] = stored;
  const parts: string[] = [];
  if (refused.length > 0)
    parts.push(`✗×${refused.length}${stored.size === 1 && only !== undefined ? ` vs ${only}` : ''}`);
  if (accepted > 0) parts.push(`✓×${accepted}`);
  return parts.join(' ');
}

/** The labels of one lane's writes, in order of x (the writes must be in that order). */
export function placeWriteLabels(writes: readonly WriteToLabel[], g: LabelGeometry): PlacedLabel[] {
  const placed: PlacedLabel[] = [];
  const trackEnd = g.right ?? Number.POSITIVE_INFINITY;
  const roomEnd = (next: number) => {
    const x = next < writes.length ? writes[next]?.x : g.nextX;
    return Math.min(trackEnd, x === undefined ? Number.POSITIVE_INFINITY : x - g.r - g.gap);
  };
  const after = (i: number) => (writes[i]?.x ?? 0) + g.r + g.gap;
  /** Where a label of `width` ends left of write `first`'s mark, if it clears the label and the mark before it. */
  const leftOf = (first: number, width: number): number | undefined => {
    const x = (writes[first]?.x ?? 0) - g.r - g.gap - width;
    const previous = placed.at(-1);
    const clear = Math.max(
      g.left ?? 0,
      previous ? previous.x + previous.width + g.gap : Number.NEGATIVE_INFINITY,
      first > 0 ? after(first - 1) : Number.NEGATIVE_INFINITY,
    );
    return x >= clear ? x : undefined;
  };
  let i = 0;
  while (i < writes.length) {
    const write = writes[i] as WriteToLabel;
    const width = labelWidth(write.label, g.px);
    if (after(i) + width <= roomEnd(i + 1)) {
      placed.push({ text: write.label, x: after(i), width, first: i, last: i });
      i += 1;
      continue;
    }
    // Left of its mark only at the track's edge: elsewhere a label reads as its write's by sitting after it.
    const left = after(i) + width > trackEnd ? leftOf(i, width) : undefined;
    if (left !== undefined) {
      placed.push({ text: write.label, x: left, width, first: i, last: i });
      i += 1;
      continue;
    }
    if (write.accepted) {
      i += 1;
      continue;
    }
    // The run grows to the right until its label fits before the next write; the last write's label
    // goes left of the run if it fits there, else it is placed even without room (cut at the edge).
    let last = i;
    for (;;) {
      const text = last === i ? write.label : runLabel(writes.slice(i, last + 1));
      const runWidth = labelWidth(text, g.px);
      if (after(last) + runWidth <= roomEnd(last + 1)) {
        placed.push({ text, x: after(last), width: runWidth, first: i, last });
        break;
      }
      if (last === writes.length - 1) {
        const left = after(last) + runWidth > trackEnd ? leftOf(i, runWidth) : undefined;
        placed.push({ text, x: left ?? after(last), width: runWidth, first: i, last });
        break;
      }
      last += 1;
    }
    i = last + 1;
  }
  return placed;
}
