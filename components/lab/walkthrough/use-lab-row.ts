'use client';

import type { RowNow } from '@/lib/model/walkthrough/narration';
import { useLabStore } from '../lab-store-provider';

/**
 * The lab's row as the database has it now (the live snapshot's), for narration that names it: the
 * last step reads the row itself, since B keeps writing after the story ends.
 */
export function useLabRow(): RowNow | undefined {
  return useLabStore((s) => s.snapshot?.row);
}
