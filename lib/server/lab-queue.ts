import 'server-only';
import { singleton } from '../os/process-singletons';

/**
 * The one per-lab queue of this server: a lab's commands run one at a time in the order they
 * arrived, lookups included (a double-clicked Resume is one resume and one "not paused", in that
 * order; a reset racing a start never leaves a process behind). Commands from other servers are not
 * in it: those meet here only in the database, where each worker takes its commands in order.
 */
export function inLabOrder<T>(labId: string, run: () => Promise<T>): Promise<T> {
  const queues = singleton('server.lab-queues', () => new Map<string, Promise<unknown>>());
  const next = (queues.get(labId) ?? Promise.resolve()).then(run, run);
  const settled = next.then(
    () => undefined,
    () => undefined,
  );
  queues.set(labId, settled);
  // Let go of a lab's queue once it has drained (private labs come and go).
  void settled.then(() => {
    if (queues.get(labId) === settled) queues.delete(labId);
  });
  return next;
}
