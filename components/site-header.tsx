import Link from 'next/link';
import type { ReactNode } from 'react';
import { ThemeToggle } from './theme-toggle';

/** The one header of the app's pages: "Fencing Lab" (home) · the page's name, then its controls (the theme toggle by default). */
export function SiteHeader({ subtitle, children }: { subtitle: ReactNode; children?: ReactNode }) {
  return (
    <header className="flex flex-wrap items-center justify-between gap-3">
      <h1 className="text-2xl font-bold">
        <Link href="/" className="hover:underline">
          Fencing Lab
        </Link>{' '}
        <span className="font-normal">· {subtitle}</span>
      </h1>
      {children ?? <ThemeToggle />}
    </header>
  );
}
