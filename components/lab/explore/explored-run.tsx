'use client';

import type { ServersAtOptions } from '@/lib/model/failover/failover-servers-at';
import type { HistoryFile } from '@/lib/model/history/history-file';
import { FailoverServersAt } from '../failover/failover-servers-at';
import { LabMainColumn } from '../lab-main-column';
import { LabStoreProvider } from '../lab-store-provider';
import { historySummaryOf } from '../replay/read-history-file';

/**
 * The interleaving walked so far on the Explore page, drawn with the lab's own views (issue 35): its
 * timeline, the checker's verdict, and the tables as its events left them, replayed in this browser
 * from the events the walk recorded, as a saved history replays; for the failover lab, its pair's
 * servers as at the last step, from the same events. Nothing is live: the walk was rolled back.
 */
export function ExploredRun({
  file,
  servers,
}: {
  file: HistoryFile;
  /** The failover lab's pair as explored (its replication, its holders) and the step shown. */
  servers?: { options: ServersAtOptions; moment: string } | undefined;
}) {
  return (
    <LabStoreProvider lab={historySummaryOf(file)} canDrive={false} history={file.events}>
      <LabMainColumn storyFirst />
      {servers ? <FailoverServersAt options={servers.options} moment={servers.moment} /> : null}
    </LabStoreProvider>
  );
}
