'use client';

import Link from 'next/link';
import { LABS, type LabId } from '@/lib/model/labs';
import { LabControls } from './controls/lab-controls';
import { LabStoreProvider } from './lab-store-provider';
import { LiveTables } from './live-tables';
import { Timeline } from './timeline/timeline';
import { VerdictBanner } from './verdict-banner';
import { WalkthroughPanel } from './walkthrough/walkthrough-panel';

/** A lab on one screen: the timeline beside the live tables, with the controls or the narration. */
export function LabView({ lab, walkthroughStep }: { lab: LabId; walkthroughStep?: number }) {
  const definition = LABS[lab];
  return (
    <LabStoreProvider lab={lab}>
      {/* The timeline holds many focusable marks: keyboard users can jump past them. */}
      <a
        href="#lab-side"
        className="sr-only rounded-md bg-sky-700 px-3 py-2 font-semibold text-white focus:not-sr-only focus:absolute focus:z-20"
      >
        {walkthroughStep === undefined ? 'Skip to the controls' : 'Skip to the walkthrough'}
      </a>
      <div className="grid gap-4 xl:grid-cols-[minmax(0,1fr)_24rem]">
        <div className="min-w-0 space-y-4">
          <VerdictBanner />
          <Timeline />
          <LiveTables />
        </div>
        <div id="lab-side" tabIndex={-1} className="space-y-4 outline-none xl:col-start-2 xl:row-start-1">
          {walkthroughStep !== undefined ? <WalkthroughPanel lab={lab} initialStep={walkthroughStep} /> : null}
          {definition.failure ? (
            <p className="rounded-lg border border-rose-300 bg-rose-50 p-3 text-base dark:border-rose-800 dark:bg-rose-950">
              <strong>Deliberately broken.</strong> {definition.summary} It fails: {definition.failure}.
            </p>
          ) : null}
          {walkthroughStep === undefined ? (
            <LabControls />
          ) : (
            <p className="text-base">
              <Link className="font-semibold underline" href={`/labs/${lab}`}>
                Leave the walkthrough and drive this lab yourself
              </Link>
            </p>
          )}
        </div>
      </div>
    </LabStoreProvider>
  );
}
