'use client';

import { useLabStore } from '@/components/lab/lab-store-provider';
import { currentPoll, type PollView } from '@/lib/model/poll/poll';

/** The latest question asked of the room in the lab's run, as its feed's snapshots carry it. */
export function useCurrentPoll(): PollView | undefined {
  return useLabStore((s) => currentPoll(s.snapshot?.polls));
}
