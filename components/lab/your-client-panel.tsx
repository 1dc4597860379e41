'use client';

import { useMemo } from 'react';
import { clientLaneFaults, clientLanes } from '@/lib/model/checker/client-faults';
import { useViewEvents } from './replay/use-replay-view';
import { YourClientStory } from './your-client-story';

/**
 * The other half of the lesson (issue 36): a person's own lock client, run as a lane from their machine
 * (`npm run worker -- … --exec "<their program>"`), and what it did wrong, read from what the lab
 * recorded as of the moment shown (lib/model/checker/client-faults.ts). Until one joins, the owner of a
 * private lab is told how, and that the lab waits for it. Once A is listed, whoever drives the lab may
 * play the pause story with it as A in one press (your-client-story.tsx).
 */
export function YourClientPanel({
  waitForOne,
  canPlay,
}: {
  waitForOne: boolean;
  /** The viewer may drive the open lab, which tells the pause story: the story's button is offered once A is listed. */
  canPlay: boolean;
}) {
  const events = useViewEvents();
  const lanes = useMemo(
    () => clientLanes(events).map((lane) => ({ ...lane, faults: clientLaneFaults(events, lane) })),
    [events],
  );
  if (lanes.length === 0 && !waitForOne) return null;
  return (
    <section
      aria-labelledby="your-client-title"
      className="space-y-2 rounded-lg border border-slate-300 p-3 text-base dark:border-slate-700"
      data-testid="your-client"
    >
      <h2 id="your-client-title" className="font-semibold">
        Your client
      </h2>
      {lanes.length === 0 ? (
        <>
          <p role="status">Waiting for your client…</p>
          <p className="text-sm">
            Any program in any language can be a lane: get your worker line below and add{' '}
            <code>--name A --exec "python3 my_client.py"</code> to its command. It calls the worker functions of{' '}
            <code>docs/protocol.md</code>; <code>clients/python/worker.py</code> and <code>clients/psql/worker.sh</code>{' '}
            are two that do it right. Then press <strong>Play the pause story with your client as A</strong> here (or,
            by hand: select A, freeze it before its next write (W), start B, and resume A once B has written): the
            checker judges the row, and this panel judges your client.
          </p>
        </>
      ) : (
        <ul className="space-y-2">
          {lanes.map((lane) => (
            <li key={lane.actor} data-testid={`your-client-${lane.actor}`}>
              <p>
                <strong>{lane.actor}</strong> runs <code>{lane.program}</code>
                {lane.running ? '' : ' (ended)'}.
              </p>
              {lane.faults.length === 0 ? (
                <p className="text-sm">
                  No fault seen so far: it wrote only with tokens it was granted, stopped after a refusal, and renewed
                  its leases.
                </p>
              ) : (
                <ul className="list-disc space-y-1 pl-5 text-sm text-red-800 dark:text-red-300">
                  {lane.faults.map((fault) => (
                    <li key={fault.kind}>{fault.words}</li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
      )}
      {/* Mounted whatever the lanes: a story stopped by a reset (which ends A's lane) still says so. */}
      {canPlay ? <YourClientStory /> : null}
    </section>
  );
}
