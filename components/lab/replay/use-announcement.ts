'use client';

import { useEffect, useState } from 'react';

/**
 * `text`, once it has stayed the same for `quietMs`: a polite live region fed from this is heard
 * when the moment comes to rest, not at every step of a drag or of playback.
 */
export function useSettledAnnouncement(text: string, quietMs: number): string {
  const [settled, setSettled] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setSettled(text), quietMs);
    return () => clearTimeout(timer);
  }, [text, quietMs]);
  return settled;
}
