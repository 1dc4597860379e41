import type { WireEvent } from '../core/wire';

/**
 * An explored path's leases with their ends, for the page that draws it and the file that replays it.
 *
 * The explorer's lease has no clock: it runs until a step ends it ("A's lease runs out", a release, a
 * standby promoted without it, a new grant to its holder). The timeline draws a lease up to its
 * `expiresAt` and a holder that still believes in it past that as "believes it holds token N, but its
 * lease ran out"; with none, every grant was drawn as run out at the moment it was granted, a claim
 * the path never made (A's first write, accepted under a lease that still ran, sat beside it).
 *
 * Each grant is given the moment of the step that ended it, a lease that still runs the moment after
 * the path's last step (`stepMs` later), and each expiry its own moment. Only drawing and the
 * checker's words read `expiresAt` (the checker dates a late write by it): no verdict changes.
 */
export function withLeaseEnds(events: readonly WireEvent[], stepMs: number): WireEvent[] {
  const out = events.map((event) => ({ ...event, detail: { ...event.detail } }));
  /** The index of each lease still running, by holder. */
  const open = new Map<string, number>();
  const end = (actor: string, at: number) => {
    const index = open.get(actor);
    const grant = index === undefined ? undefined : out[index];
    if (grant) grant.detail.expiresAt = new Date(at).toISOString();
    open.delete(actor);
  };
  for (const [index, event] of out.entries()) {
    if (event.kind === 'lease_acquired') {
      end(event.actor, event.at);
      open.set(event.actor, index);
    } else if (event.kind === 'lease_expired') {
      const index = open.get(event.actor);
      if (index !== undefined && out[index]?.token === event.token) end(event.actor, event.at);
      event.detail.expiresAt = new Date(event.at).toISOString();
    } else if (event.kind === 'lease_released') {
      end(event.actor, event.at);
    } else if (event.kind === 'standby_promoted') {
      // The promoted standby's lease, if any, is the one that goes on: every other is gone with the primary.
      const kept = event.detail.lease as { holder?: unknown; token?: unknown } | null | undefined;
      for (const [actor, index] of [...open]) {
        const held = kept && kept.holder === actor && String(kept.token) === String(out[index]?.token);
        if (!held) end(actor, event.at);
      }
    }
  }
  const after = (out.at(-1)?.at ?? 0) + stepMs;
  for (const actor of [...open.keys()]) end(actor, after);
  return out;
}
