'use client';

import type { HistoryFile } from '@/lib/model/history/history-file';
import { LabMainColumn } from '../lab-main-column';
import { LabStoreProvider } from '../lab-store-provider';
import { historySummaryOf } from '../replay/read-history-file';

/**
 * The interleaving walked so far on the Explore page, drawn with the lab's own views (issue 35): its
 * timeline, the checker's verdict, and the tables as its events left them, replayed in this browser
 * from the events the walk recorded, as a saved history replays. Nothing is live: the walk was rolled back.
 */
export function ExploredRun({ file }: { file: HistoryFile }) {
  return (
    <LabStoreProvider lab={historySummaryOf(file)} canDrive={false} history={file.events}>
      <LabMainColumn storyFirst />
    </LabStoreProvider>
  );
}
