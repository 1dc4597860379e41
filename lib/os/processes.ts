import { readFileSync, readlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/*
 * Operating-system process helpers: liveness, a process's identity beyond its PID, ordered
 * termination. A leaf (it imports nothing of the project), so the launcher, the end of orphaned
 * workers (lib/jobs/orphaned-workers.ts) and the test harness all use it without importing one another.
 */

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process's command line, or '' when it is gone (Linux /proc; elsewhere always ''). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    // The process is gone (or never was): no command line.
    return '';
  }
}

export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid) || isZombie(pid)) return true;
    await sleep(50);
  }
  return !isAlive(pid);
}

function isZombie(pid: number): boolean {
  try {
    return /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    // The process is gone: not a zombie.
    return false;
  }
}

/**
 * Sends `signal`, waits up to `graceMs`, then SIGKILLs. With `group`, the whole process group
 * (a detached child and everything it started). With `leaderFirst`, only the leader is signalled:
 * once it is gone the rest of its group gets `stragglerGraceMs` to end by itself (workers whose
 * server went record their own end: lib/worker/listener.ts), then SIGKILL. Resolves once the
 * process is gone.
 */
export async function terminate(
  pid: number,
  {
    signal = 'SIGTERM',
    graceMs = 10_000,
    group = false,
    leaderFirst = false,
    stragglerGraceMs = 0,
  }: {
    signal?: NodeJS.Signals;
    graceMs?: number;
    group?: boolean;
    leaderFirst?: boolean;
    stragglerGraceMs?: number;
  } = {},
): Promise<void> {
  const target = group ? -pid : pid;
  if (!send(group && leaderFirst ? pid : target, signal)) {
    if (group) send(target, 'SIGKILL'); // a leader gone before us may have left its group behind
    return;
  }
  if (await waitForExit(pid, graceMs)) {
    if (group) {
      await waitForGroupExit(pid, stragglerGraceMs);
      send(target, 'SIGKILL'); // stragglers in the group
    }
    return;
  }
  send(target, 'SIGKILL');
  await waitForExit(pid, 5_000);
}

async function waitForGroupExit(group: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && send(-group, 0)) await sleep(50);
}

function send(target: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(target, signal);
    return true;
  } catch {
    // No such process, or not ours to signal: false says so.
    return false;
  }
}

/**
 * Who a process is, beyond its PID (which the system hands out again, after a reboot or a wrap):
 * its start time in clock ticks since boot (`/proc/<pid>/stat` field 22), its command line and its
 * working directory, and the boot it belongs to (start times restart at every boot). Recorded when we start a process; a leftover is signalled only if all match.
 */
export type ProcessIdentity = { pid: number; bootId: string; startTicks: string; commandLine: string; cwd: string };

export function identify(pid: number): ProcessIdentity | undefined {
  const startTicks = startTime(pid);
  if (startTicks === undefined) return undefined;
  let cwd = '';
  try {
    cwd = readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    // Another user's process (or gone): its directory stays unknown, and so it never matches.
  }
  return { pid, bootId: bootId(), startTicks, commandLine: commandLine(pid), cwd };
}

/** True only when `pid` is still the very process recorded: same start time, command and directory. */
export function isSameProcess(recorded: ProcessIdentity | undefined): recorded is ProcessIdentity {
  if (!recorded || !Number.isInteger(recorded.pid) || recorded.pid <= 0) return false;
  const now = identify(recorded.pid);
  return (
    now !== undefined &&
    now.bootId === recorded.bootId &&
    now.startTicks === recorded.startTicks &&
    now.commandLine === recorded.commandLine &&
    now.cwd === recorded.cwd &&
    !isZombie(recorded.pid)
  );
}

function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    // The process is gone: no start time.
    return undefined;
  }
}

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    // No /proc (not Linux): no boot id to tell boots apart.
    return '';
  }
}

/**
 * Which run of a process this is, without naming its command or directory (it goes into a lab's
 * history, which every watcher reads): its PID, when it started, and in which boot of the machine.
 */
export type ProcessRun = { pid: number; startTicks: string; bootId: string };

export function processRunOf(pid: number): ProcessRun | undefined {
  const startTicks = startTime(pid);
  return startTicks === undefined ? undefined : { pid, startTicks, bootId: bootId() };
}

/** Whether that very run of the process still runs (a reused PID is another run). */
export function processRunIsAlive(run: ProcessRun): boolean {
  const now = processRunOf(run.pid);
  return now !== undefined && now.startTicks === run.startTicks && now.bootId === run.bootId && !isZombie(run.pid);
}
