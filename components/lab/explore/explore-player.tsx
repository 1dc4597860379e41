'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useRef } from 'react';

/** How long each step of the shortest way stays on screen while it plays. */
export const PLAY_STEP_MS = 1_500;

/**
 * The Explore page playing the shortest way to break the lab, a step at a time (issue 35 part 4): the
 * page's address says it plays (`&play=1`), and this moves it to the next step's address after a
 * while. All its state is the address, so a reload keeps playing, and what each step shows is walked
 * on the database like any other state. Pause goes to the same step without `play`, and first calls
 * off the move still to come, so that it cannot land after the pause.
 */
export function PlayingControls({ next, pause, className }: { next: string; pause: string; className: string }) {
  const router = useRouter();
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    timer.current = setTimeout(() => router.replace(next, { scroll: false }), PLAY_STEP_MS);
    return () => clearTimeout(timer.current);
  }, [next, router]);
  return (
    <Link href={pause} className={className} scroll={false} onClick={() => clearTimeout(timer.current)}>
      Pause
    </Link>
  );
}
