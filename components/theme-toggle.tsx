'use client';

import { useEffect, useState } from 'react';
import { THEME_STORAGE_KEY } from './theme-boot-script';

/**
 * Light or dark: projectors and back rows differ, so the trainer picks. The button says what a press
 * does (the theme it switches to), not the theme it is in.
 */
export function ThemeToggle() {
  const [dark, setDark] = useState<boolean | undefined>(undefined);
  useEffect(() => setDark(document.documentElement.classList.contains('dark')), []);
  const toggle = () => {
    const next = !dark;
    document.documentElement.classList.toggle('dark', next);
    try {
      localStorage.setItem(THEME_STORAGE_KEY, next ? 'dark' : 'light');
    } catch {
      // private mode: the choice lasts for this page only
    }
    setDark(next);
  };
  return (
    <button
      type="button"
      onClick={toggle}
      className="rounded-md border border-slate-300 px-3 py-1.5 text-sm font-semibold hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 dark:border-slate-700 dark:hover:bg-slate-900"
    >
      {dark ? 'Switch to light theme' : 'Switch to dark theme'}
    </button>
  );
}
