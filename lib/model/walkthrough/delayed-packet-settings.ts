/**
 * The delayed packet's story, for the scenario and the walkthrough (pure): A writes often on a short
 * lease, so that the write the packet relay holds comes soon after the hold, and its lease (renewed every
 * second while nothing is held) runs out within 2 s of it; B writes once on taking over, then renews
 * quietly, so the table shows who wrote last.
 */
export const DELAYED_PACKET_SETTINGS = {
  A: { name: 'A', leaseTtlMs: 2_000, renewEveryMs: 1_000, writeEveryMs: 500 },
  B: { name: 'B', leaseTtlMs: 3_000, renewEveryMs: 1_000, writeEveryMs: 30_000 },
} as const;
