'use client';

import { createContext, type ReactNode, useContext, useEffect, useState } from 'react';
import { useStore } from 'zustand';
import type { LabSummary } from '@/lib/model/lab-instance';
import type { WireEvent } from '@/lib/model/wire';
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
