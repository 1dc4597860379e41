/**
 * The theme's boot script and where the choice is kept. Not a client module on purpose: the root layout
 * (a server component) inlines the script in <head>, and a value imported from a `'use client'` module
 * reaches the browser as a reference to that module's chunks, not as the string. Until those chunks load,
 * <head> suspends during hydration, and React 19 then resumes the hydration of <body> inside <head>
 * (react/react#37551): error #418 and a page rendered again on the client.
 */
export const THEME_STORAGE_KEY = 'fencing-lab-theme';

/** Runs before the page paints (inlined in <head>), so the chosen theme never flashes the other. */
export const THEME_BOOT_SCRIPT = `try{var t=localStorage.getItem('${THEME_STORAGE_KEY}');if(t==='dark'||(!t&&matchMedia('(prefers-color-scheme: dark)').matches))document.documentElement.classList.add('dark')}catch(e){}`;
