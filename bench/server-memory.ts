import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/*
 * The resident memory of the Next server itself, not of the workers it forks: the launcher records
 * the pid of the process it spawned (launcher.json in the data directory); the server is that
 * process or one of its descendants, the one that holds the listening socket of the app's port.
 */

export function findServerPid(dataDir: string, port: number): number {
  const state = JSON.parse(readFileSync(path.join(dataDir, 'launcher.json'), 'utf8')) as { nextPid?: number };
  if (!state.nextPid) throw new Error('the launcher recorded no Next pid');
  const inode = listeningSocketInode(port);
  for (const pid of [state.nextPid, ...descendantsOf(state.nextPid)]) {
    if (socketInodesOf(pid).has(inode)) return pid;
  }
  throw new Error(`no process under ${state.nextPid} listens on port ${port}`);
}

/** VmRSS of a process in bytes. */
export function residentBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  const kib = Number(line?.match(/(\d+)/)?.[1]);
  if (!Number.isFinite(kib)) throw new Error(`no VmRSS for ${pid}`);
  return kib * 1024;
}

function listeningSocketInode(port: number): string {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const rows = readFileSync(file, 'utf8').split('\n').slice(1);
    for (const row of rows) {
      const cols = row.trim().split(/\s+/);
      // local_address is HEX_IP:HEX_PORT; state 0A is LISTEN; the inode is the tenth column.
      if (cols[1]?.endsWith(`:${hexPort}`) && cols[3] === '0A' && cols[9]) return cols[9];
    }
  }
  throw new Error(`nothing listens on port ${port}`);
}

function socketInodesOf(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = target.match(/^socket:\[(\d+)\]$/)?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent pid is the fourth field, after the command name in parentheses (which may hold spaces).
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // exited meanwhile
    }
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}
