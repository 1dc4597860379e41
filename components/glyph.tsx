import type { ReactNode } from 'react';

/**
 * A symbol for the eye beside words that say the same (such as ✓ ✗ ⏳ ▶ ■ ‖ ⚠ …): hidden from screen readers, which
 * would read it aloud ("check mark", "hourglass not done"), in a live region at every change. Where the
 * symbol says more than the words beside it, add words for a screen reader (`sr-only`).
 */
export function Glyph({ children }: { children: string }) {
  return <span aria-hidden="true">{children}</span>;
}

/** A glyph, then its words: `<Marked mark="✗">{error}</Marked>` is ✗ for the eye, the error for everyone. */
export function Marked({ mark, children }: { mark: string; children: ReactNode }) {
  return (
    <>
      <Glyph>{mark}</Glyph> {children}
    </>
  );
}
