/** Database time as a person reads it on a slide: 10:00:03.512 (UTC). */
export function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 23);
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}
