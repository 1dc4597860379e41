'use client';

import { createContext, type ReactNode, useContext, useEffect, useState } from 'react';
import { preload } from 'react-dom';
import { useStore } from 'zustand';
import type { WireEvent } from '@/lib/model/core/wire';
import type { LabSummary } from '@/lib/model/lab/lab-instance';
import { historyUrl } from './history-download';
import { createLabStore, type LabStore, type LabStoreApi } from './lab-store';
import { followLabFeed } from './live-feed';

const LabStoreContext = createContext<LabStoreApi | undefined>(undefined);

/**
 * Creates the lab's store once, and keeps it fed from the lab's live feed (components/lab/live-feed.ts); or,
 * given a `history` (a file opened for replay), seeds the store with it and opens no feed at all. A page
 * that reads two labs at once (the compare view) makes the `store` itself and hands it in.
 */
export function LabStoreProvider({
  lab: summary,
  canDrive,
  history,
  store: given,
  children,
}: {
  lab: LabSummary;
  canDrive: boolean;
  history?: readonly WireEvent[];
  store?: LabStoreApi;
  children: ReactNode;
}) {
  const [store] = useState(() => given ?? createLabStore(summary, canDrive, history));
  const lab = summary.id;
  const live = history === undefined;

  // The history's download starts with the page (a <link rel="preload"> in its head), while the
  // page's scripts load; the feed's first fetch of the same address takes the preloaded answer.
  if (live) preload(historyUrl(lab, 0), { as: 'fetch', crossOrigin: 'anonymous' });
  useEffect(() => (live ? followLabFeed(lab, store) : undefined), [lab, store, live]);

  return <LabStoreContext.Provider value={store}>{children}</LabStoreContext.Provider>;
}

export function useLabStore<T>(selector: (state: LabStore) => T): T {
  const store = useContext(LabStoreContext);
  if (!store) throw new Error('useLabStore must be used inside <LabStoreProvider>');
  return useStore(store, selector);
}

export function useLabStoreApi(): LabStoreApi {
  const store = useContext(LabStoreContext);
  if (!store) throw new Error('useLabStoreApi must be used inside <LabStoreProvider>');
  return store;
}
