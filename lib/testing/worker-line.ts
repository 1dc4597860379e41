import { createHash } from 'node:crypto';
import { databaseUrl } from '../../db/pool';
import { issueWorkerLine, workerLineUrl } from '../../db/worker-lines';

/*
 * A person's worker line for a test, as a lab's page issues one (db/worker-lines.ts): `who` names the
 * person (each is a browser of its own, from an address of its own), `lab` the page it was issued from.
 * The same person and lab get the same role again, with a new password: a test file's calls share a
 * line (a person per process), and a database lane's files a few dozen, not the room's 40.
 */
export async function testWorkerLineUrl(options: { who?: string; lab?: string } = {}): Promise<string> {
  // One person per test process by default: a line joins a lab under at most 8 names (worker_join).
  const who = options.who ?? `trainee-${process.pid}`;
  const lab = options.lab ?? 'fenced';
  const holder = createHash('sha256').update(`test worker line:${who}`).digest('hex');
  const bytes = createHash('md5').update(who).digest();
  const address = `127.${bytes[0]}.${bytes[1]}.${(bytes[2] ?? 0) | 1}`;
  const line = await issueWorkerLine({ holder, lab, address });
  return workerLineUrl(databaseUrl(), line);
}
