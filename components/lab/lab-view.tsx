'use client';

import Link from 'next/link';
import { hasPacketRelay, takesTraineeGuard } from '@/lib/labs/traits';
import type { LabSummary } from '@/lib/model/lab/lab-instance';
import { LABS } from '@/lib/model/lab/lab-kinds';
import { tellsPauseStory } from '@/lib/model/walkthrough/client-pause-story';
import { ClosePrivateLab } from '../access/close-private-lab';
import { RoomPoll } from '../poll/room-poll';
import { LabControls } from './controls/lab-controls';
import { ExportPanel } from './export/export-panel';
import { LabMainColumn } from './lab-main-column';
import { LabStoreProvider } from './lab-store-provider';
import { ReadOnlyPanel } from './read-only-panel';
import { RoomStatus } from './room-status';
import { WalkthroughPanel } from './walkthrough/walkthrough-panel';
import { WatchedWalkthroughPanel } from './walkthrough/watched-walkthrough-panel';
import { YourClientPanel } from './your-client-panel';
import { GuardEditor } from './your-guard/guard-editor';

/** A lab on one screen: the timeline beside the live tables, with the controls or the narration. */
export function LabView({
  lab,
  canDrive,
  walkthrough: guided,
}: {
  lab: LabSummary;
  canDrive: boolean;
  /** The walkthrough page; `initialStep` (from 0) is the step a deep link names. */
  walkthrough?: { initialStep: number | undefined };
}) {
  const definition = LABS[lab.kind];
  const walkthrough = guided !== undefined;
  return (
    <LabStoreProvider lab={lab} canDrive={canDrive}>
      {/* The timeline holds many focusable marks: keyboard users can jump past them. */}
      <a
        href="#lab-side"
        className="sr-only rounded-md bg-sky-700 px-3 py-2 font-semibold text-white focus:not-sr-only focus:absolute focus:z-20"
      >
        {walkthrough ? 'Skip to the walkthrough' : 'Skip to the controls'}
      </a>
      <div className="grid gap-4 xl:grid-cols-[minmax(0,1fr)_24rem]">
        <LabMainColumn storyFirst={walkthrough} />
        <div id="lab-side" tabIndex={-1} className="space-y-4 outline-none xl:col-start-2 xl:row-start-1">
          <RoomStatus />
          {guided && canDrive ? (
            <WalkthroughPanel lab={lab.kind} labId={lab.id} initialStep={guided.initialStep} />
          ) : null}
          {guided && !canDrive ? <WatchedWalkthroughPanel lab={lab.kind} /> : null}
          {!canDrive ? <RoomPoll /> : null}
          {definition.failure ? (
            <p className="rounded-lg border border-rose-300 bg-rose-50 p-3 text-base dark:border-rose-800 dark:bg-rose-950">
              <strong>Deliberately broken.</strong> {definition.summary} It fails: {definition.failure}.
            </p>
          ) : null}
          {!canDrive ? <ReadOnlyPanel lab={lab} walkthrough={walkthrough} /> : null}
          {canDrive && !walkthrough && takesTraineeGuard(lab.kind) && !lab.closed ? (
            <GuardEditor labId={lab.id} />
          ) : null}
          {canDrive && !walkthrough ? <LabControls /> : null}
          {walkthrough ? null : (
            <YourClientPanel
              waitForOne={
                canDrive &&
                lab.visibility === 'private' &&
                !lab.closed &&
                !takesTraineeGuard(lab.kind) &&
                !hasPacketRelay(lab.kind)
              }
              canPlay={canDrive && !lab.closed && tellsPauseStory(lab.kind)}
            />
          )}
          {canDrive && lab.visibility === 'private' ? <ClosePrivateLab lab={lab.id} /> : null}
          {canDrive && walkthrough ? (
            <p className="text-base">
              <Link className="font-semibold underline" href={`/labs/${lab.id}`}>
                Leave the walkthrough and drive this lab yourself
              </Link>
            </p>
          ) : null}
          <ExportPanel />
        </div>
      </div>
    </LabStoreProvider>
  );
}
