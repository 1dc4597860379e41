'use client';

import { create } from 'zustand';
import type { GuardStanding } from '@/lib/model/guard/guard-inputs';

/*
 * How the your-guard lab's guard fared, as its editor last read it from the server (the attempts kept
 * in guard_attempts): the row's table heading says what guards the row, and how its last attack ended.
 * A statement refused before it ran changes nothing: the row keeps the guard it had.
 */

type LastVerdicts = {
  byLab: Record<string, GuardStanding>;
  set: (lab: string, standing: GuardStanding) => void;
};

export const useLastVerdicts = create<LastVerdicts>()((set) => ({
  byLab: {},
  set: (lab, standing) => set((state) => ({ byLab: { ...state.byLab, [lab]: standing } })),
}));

/** What the row's heading says of the guard: it is the trainee's, and how its last attack ended. */
export function guardHeading(standing: GuardStanding | undefined): string {
  switch (standing) {
    case 'passed':
      return 'guarded by your statement: it held its last attack';
    case 'violation':
      return 'guarded by your statement: its last attack broke it';
    case 'none':
      return 'no guard yet: write one below';
    default:
      return 'guarded by your statement';
  }
}
