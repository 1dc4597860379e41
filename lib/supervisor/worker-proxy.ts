import 'server-only';
import type { LabInstance } from '../model/lab/lab-instance';
import { hasPacketProxy } from '../model/lab/lab-kinds';
import { PacketProxy } from '../os/packet-proxy';
import { localWorkerUrl } from './local-worker-url';

/**
 * The network of a worker in a delayed-packet lab: a proxy of this server (lib/os/packet-proxy.ts)
 * between that worker and PostgreSQL, and the worker URL that goes through it. One per worker
 * process, owned by that process's record (worker-process.ts), which closes it when the process ends:
 * a reset, a close, a crash, a shutdown all end the process, and so the proxy. Nothing for other labs.
 */
export async function openWorkerProxy(lab: LabInstance): Promise<{ proxy: PacketProxy; url: string } | undefined> {
  if (!hasPacketProxy(lab.kind)) return undefined;
  const direct = new URL(localWorkerUrl());
  const proxy = await PacketProxy.open({ host: direct.hostname, port: Number(direct.port || 5432) });
  const url = new URL(direct);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return { proxy, url: url.toString() };
}
