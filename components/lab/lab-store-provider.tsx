'use client';

import { createContext, type ReactNode, useContext, useEffect, useState } from 'react';
import { useStore } from 'zustand';
import type { LabId } from '@/lib/model/labs';
import type { LabSnapshot, WireEvent } from '@/lib/model/wire';
import { createLabStore, type LabStore, type LabStoreApi } from './lab-store';

const LabStoreContext = createContext<LabStoreApi | undefined>(undefined);

/** Creates the lab's store once, and keeps it fed from the lab's live feed (one EventSource). */
export function LabStoreProvider({ lab, children }: { lab: LabId; children: ReactNode }) {
  const [store] = useState(() => createLabStore(lab));

  useEffect(() => {
    const source = new EventSource(`/api/labs/${lab}/events`);
    const { getState } = store;
    const parse = <T,>(message: MessageEvent) => JSON.parse(message.data as string) as T;
    source.addEventListener('open', () => getState().setConnection('live'));
    source.addEventListener('error', () => getState().setConnection('reconnecting'));
    source.addEventListener('hello', (m) => getState().receiveHello(parse<{ firstId: number | null }>(m).firstId));
    source.addEventListener('reset', () => getState().receiveReset());
    source.addEventListener('lab-event', (m) => getState().receiveEvent(parse<WireEvent>(m)));
    source.addEventListener('snapshot', (m) => getState().receiveSnapshot(parse<LabSnapshot>(m)));
    return () => source.close();
  }, [lab, store]);

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
