/*
 * Why a private lab is closed, in words, from the `lab_closed` event that closed it (its reason is
 * recorded by whoever closed it: its owner, the idle check, a sweep run's end). Pure.
 */

type ClosedEvent = { kind: string; detail: Record<string, unknown> };

export function closedInWords(events: readonly ClosedEvent[]): string {
  const closed = events.findLast((event) => event.kind === 'lab_closed');
  const reason = typeof closed?.detail.reason === 'string' ? closed.detail.reason : undefined;
  const idle = reason?.match(/^idle for (\d+) minutes?$/);
  if (reason === 'closed by its owner') return 'Its owner closed this private lab.';
  if (idle) return `This private lab closed itself after ${idle[1]} minutes with nobody using it.`;
  if (reason) return `This private lab was closed: ${reason}.`;
  return 'This private lab was closed.';
}
