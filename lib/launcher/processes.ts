import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Process helpers for the launcher: liveness, identity by command line, ordered termination. */

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
    return false;
  }
}

/**
 * Sends `signal`, waits up to `graceMs`, then SIGKILLs. With `group`, the whole process group
 * (a detached child and everything it started). Resolves once the process is gone.
 */
export async function terminate(
  pid: number,
  {
    signal = 'SIGTERM',
    graceMs = 10_000,
    group = false,
  }: { signal?: NodeJS.Signals; graceMs?: number; group?: boolean } = {},
): Promise<void> {
  const target = group ? -pid : pid;
  if (!send(target, signal)) return;
  if (await waitForExit(pid, graceMs)) {
    if (group) send(target, 'SIGKILL'); // stragglers in the group
    return;
  }
  send(target, 'SIGKILL');
  await waitForExit(pid, 5_000);
}

function send(target: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(target, signal);
    return true;
  } catch {
    return false;
  }
}
