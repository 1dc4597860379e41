'use client';

import { create } from 'zustand';
import type { GuardResult } from '@/lib/model/guard-inputs';

/*
 * The your-guard lab's last verdict, as its editor last read it from the server (the attempt kept in
 * guard_attempts): the row's table heading says what guards the row, and how it last fared.
 */

type LastVerdicts = {
  byLab: Record<string, GuardResult['outcome'] | 'none'>;
  set: (lab: string, outcome: GuardResult['outcome'] | 'none') => void;
};

export const useLastVerdicts = create<LastVerdicts>()((set) => ({
  byLab: {},
  set: (lab, outcome) => set((state) => ({ byLab: { ...state.byLab, [lab]: outcome } })),
}));

/** What the row's heading says of the guard: it is the trainee's, and how its last attack ended. */
export function guardHeading(outcome: GuardResult['outcome'] | 'none' | undefined): string {
  switch (outcome) {
    case 'passed':
      return 'guarded by your statement: it held its last attack';
    case 'violation':
      return 'guarded by your statement: its last attack broke it';
    case 'refused':
      return 'guarded by your last statement that ran (your newest was refused before it ran)';
    case 'none':
      return 'no guard yet: write one below';
    default:
      return 'guarded by your statement';
  }
}
