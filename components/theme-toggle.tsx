'use client';

import { useEffect, useState } from 'react';

const STORAGE_KEY = 'fencing-lab-theme';

/** Runs before the page paints (inlined in <head>), so the chosen theme never flashes the other. */
export const THEME_BOOT_SCRIPT = `try{var t=localStorage.getItem('${STORAGE_KEY}');if(t==='dark'||(!t&&matchMedia('(prefers-color-scheme: dark)').matches))document.documentElement.classList.add('dark')}catch(e){}`;

/** Light or dark: projectors and back rows differ, so the trainer picks. */
export function ThemeToggle() {
  const [dark, setDark] = useState<boolean | undefined>(undefined);
  useEffect(() => setDark(document.documentElement.classList.contains('dark')), []);
  const toggle = () => {
    const next = !dark;
    document.documentElement.classList.toggle('dark', next);
    try {
      localStorage.setItem(STORAGE_KEY, next ? 'dark' : 'light');
    } catch {
      // private mode: the choice lasts for this page only
    }
    setDark(next);
  };
  return (
    <button
      type="button"
      onClick={toggle}
      aria-pressed={dark ?? false}
      className="rounded-md border border-slate-300 px-3 py-1.5 text-sm font-semibold hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 dark:border-slate-700 dark:hover:bg-slate-900"
    >
      Dark theme
    </button>
  );
}
