'use client';

import { createContext, type ReactNode, useContext, useEffect, useState } from 'react';
import { useStore } from 'zustand';
import type { LabSummary } from '@/lib/model/lab-instance';
import type { LabSnapshot, WireEvent } from '@/lib/model/wire';
import { createLabStore, type LabStore, type LabStoreApi } from './lab-store';

const LabStoreContext = createContext<LabStoreApi | undefined>(undefined);
const FLUSH_MS = 16;

/**
 * Creates the lab's store once, and keeps it fed from the lab's live feed (one EventSource); or,
 * given a `history` (a file opened for replay), seeds the store with it and opens no feed at all.
 */
export function LabStoreProvider({
  lab: summary,
  canDrive,
  history,
  children,
}: {
  lab: LabSummary;
  canDrive: boolean;
  history?: readonly WireEvent[];
  children: ReactNode;
}) {
  const [store] = useState(() => createLabStore(summary, canDrive, history));
  const lab = summary.id;
  const live = history === undefined;

  useEffect(() => {
    if (!live) return;
    const source = new EventSource(`/api/labs/${lab}/events`);
    const { getState } = store;
    const parse = <T,>(message: MessageEvent) => JSON.parse(message.data as string) as T;
    // A lone event is stored at once; a burst (a replay of thousands) in batches of one frame.
    let pending: WireEvent[] = [];
    let flushTimer: ReturnType<typeof setTimeout> | undefined;
    let lastFlush = 0;
    const flush = () => {
      flushTimer = undefined;
      lastFlush = performance.now();
      const batch = pending;
      pending = [];
      getState().receiveEvents(batch);
    };
    // Until the history is out, events are only collected: a replay of thousands is stored (and
    // drawn) once, not once per frame. After that, each event is stored as it comes.
    let caughtUp = false;
    source.addEventListener('open', () => {
      caughtUp = false;
    });
    source.addEventListener('error', () => getState().setConnection('reconnecting'));
    // The server could not start this feed: it closes the stream, and EventSource tries again.
    source.addEventListener('failure', () => getState().setConnection('reconnecting'));
    source.addEventListener('caught-up', () => {
      caughtUp = true;
      flush();
      getState().setConnection('live');
    });
    source.addEventListener('hello', (m) => getState().receiveHello(parse<{ firstId: number | null }>(m).firstId));
    source.addEventListener('reset', (m) => {
      // Events after the reset may have arrived before the word of it: only older ones go.
      const { upTo } = parse<{ upTo?: number }>(m);
      pending = upTo === undefined ? [] : pending.filter((e) => e.id > upTo);
      getState().receiveReset(upTo);
    });
    source.addEventListener('lab-event', (m) => {
      pending.push(parse<WireEvent>(m));
      if (!caughtUp || flushTimer) return;
      const since = performance.now() - lastFlush;
      if (since >= FLUSH_MS) flush();
      else flushTimer = setTimeout(flush, FLUSH_MS - since);
    });
    source.addEventListener('snapshot', (m) => getState().receiveSnapshot(parse<LabSnapshot>(m)));
    return () => {
      source.close();
      if (flushTimer) clearTimeout(flushTimer);
    };
  }, [lab, store, live]);

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
