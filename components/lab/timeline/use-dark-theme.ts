'use client';

import { useSyncExternalStore } from 'react';

/*
 * Whether the page is in the dark theme (the `dark` class the theme toggle sets on <html>): the
 * canvas has no stylesheet, so it repaints in the other palette when the class changes.
 */

function subscribe(onChange: () => void): () => void {
  const observer = new MutationObserver(onChange);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['class'] });
  return () => observer.disconnect();
}

const isDark = () => document.documentElement.classList.contains('dark');

export function useDarkTheme(): boolean {
  return useSyncExternalStore(subscribe, isDark, () => false);
}
