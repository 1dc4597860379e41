/**
 * Who a worker is, as it presents itself to every worker function (0016_worker_functions.sql): the lab
 * it joined, its name there, and the per-run secret (`instance`) it got when it joined. The database
 * refuses another worker's name or instance, a lab it did not join, and a lab reset since it joined.
 */
export type WorkerIdentity = { lab: string; name: string; instance: string };

/** The first three parameters of every worker function. */
export function identityParams(as: WorkerIdentity): [string, string, string] {
  return [as.lab, as.name, as.instance];
}
