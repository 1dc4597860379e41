/**
 * Which lanes' marks the timeline lists as buttons (what a keyboard and a screen reader reach).
 *
 * A timeline of up to ALL_LISTED_UP_TO lanes lists every lane, wherever the page is scrolled: a
 * screen reader's cursor does not scroll the window, and a test (or a person) who scrolled to the
 * network controls below must still find lane A's marks. Before this, a page scrolled a few lanes
 * past the timeline's top listed none of lane A's marks (seen in CI: a private delayed packet).
 *
 * A taller one (a room of fifty holders) lists the lanes on screen, give or take LANE_MARGIN, so that
 * listing marks nobody can see does not slow the ones they can; scrolled wholly past it, the nearest
 * lanes, never none.
 */
export const ALL_LISTED_UP_TO = 12;
const LANE_MARGIN = 2;

export type LanesOnScreen = {
  /** The top of the first lane, from the top of the window, in CSS pixels (negative when scrolled past). */
  lanesTop: number;
  windowHeight: number;
  laneH: number;
  laneCount: number;
};

/** The first and last lane (from 0, both included) whose marks are listed. */
export function listedLanes({ lanesTop, windowHeight, laneH, laneCount }: LanesOnScreen): readonly [number, number] {
  const lastLane = Math.max(0, laneCount - 1);
  if (laneCount <= ALL_LISTED_UP_TO) return [0, lastLane];
  const first = Math.floor(-lanesTop / laneH) - LANE_MARGIN;
  const last = Math.ceil((windowHeight - lanesTop) / laneH) + LANE_MARGIN;
  const from = Math.min(Math.max(0, first), lastLane);
  const to = Math.max(from, Math.min(Math.max(0, last), lastLane));
  return [from, to];
}
