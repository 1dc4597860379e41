import { cpus } from 'node:os';

/*
 * The closing table of `npm test` (lib/testing/run-suites.ts): when each suite started, how long it took,
 * and how busy the machine's CPUs were meanwhile: all their busy time, whoever used it, so the figures
 * speak for the run only on a machine that runs nothing else (as CI's clean clone does). Suites run side
 * by side each count the same CPU time, so their rows do not add up; the total is measured once. A run
 * that kept every CPU busy can only get much faster by doing less work, or the same on more CPUs, however
 * its suites are arranged (issue 37; docs/testing.md, "Where the node time goes").
 */

/**
 * The CPU-seconds every CPU of this machine has spent busy since it started (user, nice, system, irq, as
 * Node reads them: a virtual machine's stolen time is not among them).
 */
export function busyCpuSeconds(): number {
  return cpus().reduce((sum, { times }) => sum + times.user + times.nice + times.sys + times.irq, 0) / 1000;
}

export type SuiteRun = {
  name: string;
  /** Seconds after `npm test` started. */
  startedAt: number;
  seconds: number;
  /** The machine's busy CPU-seconds while it ran (a suite beside it counts too). */
  busyCpuSeconds: number;
  code: number;
};

/** What a whole run adds up to. */
export type RunTotal = { seconds: number; busyCpuSeconds: number; cpuCount: number };

const percent = (busy: number, seconds: number, cpuCount: number) =>
  seconds > 0 && cpuCount > 0 ? `${Math.round((100 * busy) / (seconds * cpuCount))}%` : '?';

/**
 * The table's lines. For each suite: started at, took, the machine's CPUs busy meanwhile (CPU-seconds and
 * the share of every CPU's time). Then the total, and the floor: the busy CPU-seconds spread over every
 * CPU: about the least time the same work can take on this machine, with no CPU ever idle.
 */
export function suiteReport(ran: readonly SuiteRun[], total: RunTotal): string[] {
  const width = Math.max(...ran.map((r) => r.name.length), 'total'.length);
  const cpu = (busy: number, seconds: number) =>
    `${busy.toFixed(0).padStart(6)} CPU-s ${percent(busy, seconds, total.cpuCount).padStart(4)}`;
  const lines = [
    `npm test: time per suite (started at, took; the machine's ${total.cpuCount} CPUs busy meanwhile, whoever used them, in CPU-seconds and as a share of all their time; suites side by side count the same CPU time)`,
  ];
  for (const r of ran) {
    lines.push(
      `  ${r.name.padEnd(width)}  at ${r.startedAt.toFixed(0).padStart(5)} s  ${r.seconds.toFixed(0).padStart(5)} s  ${cpu(r.busyCpuSeconds, r.seconds)}  ${r.code === 0 ? 'passed' : 'FAILED'}`,
    );
  }
  lines.push(
    `  ${'total'.padEnd(width)}  ${''.padStart(10)}  ${total.seconds.toFixed(0).padStart(5)} s  ${cpu(total.busyCpuSeconds, total.seconds)}`,
  );
  if (total.cpuCount === 0) return lines; // a sandbox that shows no CPU: no floor to speak of
  const floor = total.busyCpuSeconds / total.cpuCount;
  lines.push(
    `  the same work with every CPU busy all the time: about ${floor.toFixed(0)} s (${(floor / 60).toFixed(1)} min) on ${total.cpuCount} CPUs`,
  );
  return lines;
}
