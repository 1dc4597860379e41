import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { THEME_BOOT_SCRIPT } from '@/components/theme-boot-script';
import './globals.css';

export const metadata: Metadata = {
  title: 'Fencing Lab',
  description: 'Watch a paused lock holder’s stale write get rejected by a real Postgres.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant of ours, run before paint to avoid a theme flash. */}
        <script dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
      </head>
      <body className="min-h-screen bg-white text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
        {children}
      </body>
    </html>
  );
}
