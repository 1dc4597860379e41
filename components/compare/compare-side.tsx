'use client';

import type { LabStoreApi } from '../lab/lab-store';
import { LabStoreProvider } from '../lab/lab-store-provider';
import { Timeline, type TimelineMarker } from '../lab/timeline/timeline';
import { VerdictBanner } from '../lab/verdict-banner';
import type { CompareSource } from './compare-source';

/** One run of the comparison: the checker's verdict and the lab's own timeline, at the shared moment. */
export function CompareSide({
  source,
  store,
  title,
  marker,
}: {
  source: CompareSource;
  store: LabStoreApi;
  title: string;
  marker: TimelineMarker | undefined;
}) {
  const state = store.getState();
  return (
    <LabStoreProvider
      lab={{ id: state.lab, kind: state.kind, visibility: state.visibility, closed: !state.live }}
      canDrive={false}
      store={store}
      {...(source.type === 'file' ? { history: source.file.events } : {})}
    >
      <div className="space-y-2">
        <VerdictBanner />
        <Timeline title={title} marker={marker} />
      </div>
    </LabStoreProvider>
  );
}
