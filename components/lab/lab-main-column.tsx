'use client';

import { LiveTables } from './live-tables';
import { ReplayBar } from './replay/replay-bar';
import { Timeline } from './timeline/timeline';
import { VerdictBanner } from './verdict-banner';

/**
 * What a lab shows of its run, live or replayed from a file: the verdict, replay, timeline and tables.
 * A walkthrough tells the story on the timeline: it comes before the replay bar, so that at 1280×720
 * a broken lab's verdict leaves every lane of it above the fold.
 */
export function LabMainColumn({ storyFirst = false }: { storyFirst?: boolean }) {
  return (
    <div className="min-w-0 space-y-4">
      <VerdictBanner />
      {storyFirst ? null : <ReplayBar />}
      <Timeline />
      {storyFirst ? <ReplayBar /> : null}
      <LiveTables />
    </div>
  );
}
