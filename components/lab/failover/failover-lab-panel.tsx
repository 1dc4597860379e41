'use client';

import { useState } from 'react';
import type { ActionResult } from '@/lib/model/core/action-result';
import { failoverWalkthrough } from '@/lib/model/failover/failover-walkthrough';
import type { LabSummary } from '@/lib/model/lab/lab-instance';
import { ExportPanel } from '../export/export-panel';
import { LabStoreProvider } from '../lab-store-provider';
import { ReplayBar } from '../replay/replay-bar';
import { Timeline } from '../timeline/timeline';
import { VerdictBanner } from '../verdict-banner';
import { runFailoverAction } from './failover-actions';
import { FailoverControls } from './failover-controls';
import { FailoverServers } from './failover-servers';
import { FailoverWalkthroughPanel } from './failover-walkthrough-panel';
import { useFailoverServers } from './use-failover-servers';

/**
 * The failover lab on one screen, as every lab: the checker's verdict, replay, the timeline (A, B
 * and C as lanes, the cluster's steps as lab-wide marks) and export, all fed by the lab's live feed;
 * beside them the walkthrough, the trainer's controls, and the pair's servers as they answer now.
 */
export function FailoverLabPanel({
  lab,
  mode,
  initialStep,
  canDrive,
}: {
  lab: LabSummary;
  mode: 'async' | 'sync';
  initialStep: number | undefined;
  canDrive: boolean;
}) {
  const { view, refresh } = useFailoverServers();
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);

  /** Runs one control or step; true when the server did it. */
  const act = async (label: string, run: () => Promise<ActionResult<unknown>>): Promise<boolean> => {
    setBusy(true);
    setNotice(`${label}…`);
    try {
      const result = await run();
      if (result.ok) {
        const waiting = (result.data as { waiting?: boolean } | undefined)?.waiting;
        setNotice(waiting ? `${label}: waiting (the COMMIT is not acknowledged yet)` : `${label}: done`);
      } else {
        setNotice(`${label}: ${result.error.message}`);
      }
      return result.ok;
    } finally {
      setBusy(false);
      await refresh();
    }
  };

  /** A deep link's button: the walkthrough's steps from the lab's next one up to `target`, one after another; true when all ran. */
  const runUpTo = async (from: number, target: number): Promise<boolean> => {
    const walkthrough = failoverWalkthrough(mode);
    setBusy(true);
    try {
      for (let n = from; n <= target; n++) {
        const step = walkthrough[n - 1];
        if (!step?.action) break;
        setNotice(`Step ${n}: ${step.title}…`);
        const result = await runFailoverAction(step.action);
        await refresh();
        if (!result.ok) {
          setNotice(`Step ${n}: ${result.error.message}`);
          return false;
        }
      }
      setNotice(`Steps ${from} to ${target}: done`);
      return true;
    } finally {
      setBusy(false);
    }
  };

  return (
    <LabStoreProvider lab={lab} canDrive={canDrive}>
      <div className="grid gap-4 xl:grid-cols-[minmax(0,1fr)_26rem]">
        <div className="min-w-0 space-y-4">
          <VerdictBanner />
          <ReplayBar />
          <Timeline />
          <section aria-labelledby="fo-servers" className="space-y-3 rounded-lg border p-4">
            <h2 id="fo-servers" className="text-xl font-semibold">
              The servers, as they answer now
            </h2>
            <FailoverServers view={view} />
          </section>
        </div>
        <div className="space-y-4">
          <FailoverWalkthroughPanel
            mode={mode}
            initialStep={initialStep}
            canDrive={canDrive}
            busy={busy}
            notice={notice}
            act={act}
            runUpTo={runUpTo}
          />
          {canDrive ? (
            <FailoverControls busy={busy} act={act} />
          ) : (
            <p className="rounded-lg border p-4">Watching: only the trainer drives the failover lab.</p>
          )}
          <ExportPanel />
        </div>
      </div>
    </LabStoreProvider>
  );
}
