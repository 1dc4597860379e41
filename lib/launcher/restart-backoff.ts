/** How long to wait before restart attempt `attempt` (0-based): 0.5 s, 1 s, 2 s, 4 s, then 5 s for good. */
export const RESTART_FIRST_DELAY_MS = 500;
export const RESTART_MAX_DELAY_MS = 5_000;
/** A process that stayed up this long counts as recovered: its next crash starts the back-off anew. */
export const RESTART_STABLE_MS = 30_000;

export function restartDelayMs(attempt: number): number {
  return Math.min(RESTART_FIRST_DELAY_MS * 2 ** Math.max(0, attempt), RESTART_MAX_DELAY_MS);
}
