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

export function FailoverServers({ view }: { view: FailoverView | undefined }) {
  if (!view?.mode) return <p>No pair runs. Start one (walkthrough step 1, or free play).</p>;
  return (
    <div className="space-y-2">
      <p>
        {view.mode === 'sync' ? 'Synchronous' : 'Asynchronous'} replication, {view.replicationCut ? 'cut' : 'connected'}
        {view.promoted ? '; the standby was promoted' : ''}.
      </p>
      <table className="w-full text-left">
        <caption className="sr-only">Each server of the pair</caption>
        <thead>
          <tr>
            <th scope="col">server</th>
            <th scope="col">row (value, last_token)</th>
            <th scope="col">lease</th>
            <th scope="col">sequence</th>
          </tr>
        </thead>
        <tbody>
          {view.servers.map((server) => (
            <tr key={server.role}>
              <th scope="row">
                {server.role} {server.running ? '' : '(down)'}
              </th>
              <td>{server.row ? `"${server.row.value}", ${server.row.lastToken}` : '—'}</td>
              <td>
                {server.lease
                  ? `${server.lease.holder}, token ${server.lease.token}${server.lease.expiresInMs > 0 ? `, ${(server.lease.expiresInMs / 1000).toFixed(1)} s left` : ', expired'}`
                  : '—'}
              </td>
              <td>
                {server.sequence
                  ? server.role === 'standby'
                    ? `covers up to ${server.sequence.lastValue}`
                    : `last ${server.sequence.lastValue}, ${server.sequence.logCount} logged ahead`
                  : '—'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
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
