/*
 * The one way the product shows a moment: the database's clock, HH:MM:SS.mmm in UTC (10:28:38.085),
 * in the narration, the checker's findings, the marks' words, and the timeline's axis, so that a time
 * a sentence names is found on the axis by reading it. Seconds since some origin ("+12 s") would need
 * the reader to know the origin, and a worker's own reading of its clock (the drifting clock's) is a
 * clock time, not an offset.
 */

/** A moment as the product says it: 10:28:38.085 (UTC, the database's clock). */
export const clockTime = (at: number): string => new Date(at).toISOString().slice(11, 23);

/** An axis tick: the same clock, without its zero milliseconds on a whole second (10:28:38, 10:28:38.500). */
export const clockTick = (at: number): string => (at % 1000 === 0 ? clockTime(at).slice(0, 8) : clockTime(at));

/** A clock time as the product writes it, back to its ms of the day (for a test or a reader that compares). */
export function msOfDay(text: string): number | undefined {
  const match = text.match(/^(\d\d):(\d\d):(\d\d)(?:\.(\d\d\d))?$/);
  if (!match) return undefined;
  const [, h, m, s, ms] = match.map(Number) as [number, number, number, number, number];
  return ((h * 60 + m) * 60 + s) * 1000 + (Number.isNaN(ms) ? 0 : ms);
}
