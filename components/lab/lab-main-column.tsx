'use client';

import { LiveTables } from './live-tables';
import { ReplayBar } from './replay/replay-bar';
import { Timeline } from './timeline/timeline';
import { VerdictBanner } from './verdict-banner';

/** What a lab shows of its run, live or replayed from a file: the verdict, replay, timeline and tables. */
export function LabMainColumn() {
  return (
    <div className="min-w-0 space-y-4">
      <VerdictBanner />
      <ReplayBar />
      <Timeline />
      <LiveTables />
    </div>
  );
}
