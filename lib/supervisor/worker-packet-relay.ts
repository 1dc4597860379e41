import 'server-only';
import type { LabInstance } from '../model/lab/lab-instance';
import { hasPacketRelay } from '../model/lab/lab-kinds';
import { PacketRelay } from '../os/packet-relay';
import { localWorkerUrl } from './local-worker-url';

/**
 * The network of a worker in a delayed-packet lab: a packet relay of this server (lib/os/packet-relay.ts)
 * between that worker and PostgreSQL, and the worker URL that goes through it. One per worker
 * process, owned by that process's record (worker-process.ts), which closes it when the process ends:
 * a reset, a close, a crash, a shutdown all end the process, and so the relay. Nothing for other labs.
 */
export async function openWorkerPacketRelay(
  lab: LabInstance,
): Promise<{ relay: PacketRelay; url: string } | undefined> {
  if (!hasPacketRelay(lab.kind)) return undefined;
  const direct = new URL(localWorkerUrl());
  const relay = await PacketRelay.open({ host: direct.hostname, port: Number(direct.port || 5432) });
  const url = new URL(direct);
  url.hostname = '127.0.0.1';
  url.port = String(relay.port);
  return { relay, url: url.toString() };
}
