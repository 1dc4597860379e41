import type { ReactNode } from 'react';

/** What the failover lab's page shows of its servers (lib/supervisor/failover/failover-lab-view.ts), as plain data. */
export type FailoverView = {
  mode?: 'async' | 'sync';
  replicationCut: boolean;
  promoted: boolean;
  primaryKilled: boolean;
  holders: Record<string, { token?: string; waiting: boolean }>;
  servers: {
    role: string;
    running: boolean;
    row?: { value: string; lastToken: string };
    lease?: { holder: string; token: string; expiresInMs: number };
    sequence?: { lastValue: string; logCount: number };
  }[];
};

/** One server's line of the table, in words: its row, lease and sequence cells. */
export type ServerCells = { role: string; running: boolean; row: ReactNode; lease: ReactNode; sequence: ReactNode };

/** The pair's servers as a table, live or at a moment: a row a server, its caption saying which. */
export function ServersTable({
  caption,
  captionHidden = true,
  servers,
}: {
  caption: string;
  captionHidden?: boolean;
  servers: ServerCells[];
}) {
  return (
    <table className="w-full text-left">
      <caption className={captionHidden ? 'sr-only' : 'text-left text-sm text-slate-700 dark:text-slate-300'}>
        {caption}
      </caption>
      <thead>
        <tr>
          <th scope="col">server</th>
          <th scope="col">row (value, last_token)</th>
          <th scope="col">lease</th>
          <th scope="col">sequence</th>
        </tr>
      </thead>
      <tbody>
        {servers.map((server) => (
          <tr key={server.role}>
            <th scope="row">
              {server.role} {server.running ? '' : '(down)'}
            </th>
            <td>{server.row}</td>
            <td>{server.lease}</td>
            <td>{server.sequence}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function FailoverServers({ view }: { view: FailoverView | undefined }) {
  if (!view?.mode) return <p>No pair runs. Start one (walkthrough step 1, or free play).</p>;
  return (
    <div className="space-y-2">
      <p>
        {view.mode === 'sync' ? 'Synchronous' : 'Asynchronous'} replication, {view.replicationCut ? 'cut' : 'connected'}
        {view.promoted ? '; the standby was promoted' : ''}.
      </p>
      <ServersTable
        caption="Each server of the pair"
        servers={view.servers.map((server) => ({
          role: server.role,
          running: server.running,
          row: server.row ? `"${server.row.value}", ${server.row.lastToken}` : '—',
          lease: server.lease
            ? `${server.lease.holder}, token ${server.lease.token}${server.lease.expiresInMs > 0 ? `, ${(server.lease.expiresInMs / 1000).toFixed(1)} s left` : ', expired'}`
            : '—',
          sequence: server.sequence
            ? server.role === 'standby'
              ? `covers up to ${server.sequence.lastValue}`
              : `last ${server.sequence.lastValue}, ${server.sequence.logCount} logged ahead`
            : '—',
        }))}
      />
      <p>
        Holders:{' '}
        {Object.entries(view.holders)
          .map(
            ([name, h]) => `${name} ${h.token ? `token ${h.token}` : 'no token'}${h.waiting ? ' (grant waiting)' : ''}`,
          )
          .join(' · ')}
      </p>
    </div>
  );
}
