'use client';

import { useEffect, useId, useRef, useState } from 'react';
import { controlButton } from './styles';

/**
 * Resetting a shared lab clears it for the whole room (every watcher's timeline, the row, the
 * history), so the trainer is asked first; a private lab is the asker's own and resets at once.
 * `request` is what the button and the X shortcut call.
 */
export function useConfirmedReset({ shared, reset }: { shared: boolean; reset: () => unknown }) {
  const [asking, setAsking] = useState(false);
  return {
    request: () => (shared ? setAsking(true) : void reset()),
    dialog: {
      open: asking,
      onCancel: () => setAsking(false),
      onConfirm: () => {
        setAsking(false);
        void reset();
      },
    },
  };
}

/**
 * The question, as a modal dialog: the browser's own `<dialog>` keeps the keyboard inside it and
 * closes it on Escape (a cancel), and gives the focus back to the button that opened it.
 */
export function ConfirmResetDialog({
  open,
  onCancel,
  onConfirm,
  what,
}: {
  open: boolean;
  onCancel: () => void;
  onConfirm: () => void;
  /** What the reset does, in words: the dialog's description. */
  what: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const textId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={textId}
      onCancel={(event) => {
        // Escape: the dialog closes through `open`, so that React and the browser agree.
        event.preventDefault();
        onCancel();
      }}
      className="max-w-md space-y-3 rounded-lg border border-slate-300 bg-white p-4 text-slate-900 backdrop:bg-slate-900/50 dark:border-slate-700 dark:bg-slate-950 dark:text-slate-100"
    >
      <h2 id={titleId} className="text-lg font-semibold">
        Reset the shared lab?
      </h2>
      <p id={textId} className="text-base">
        {what}
      </p>
      <div className="flex justify-end gap-2">
        {/* The safe answer first, and focused: Enter or Space at once does nothing to the room's lab. */}
        {/* biome-ignore lint/a11y/noAutofocus: the focus a modal dialog is opened with, as the APG's dialog pattern asks. */}
        <button type="button" className={controlButton} onClick={onCancel} autoFocus>
          Cancel
        </button>
        <button type="button" className={controlButton} onClick={onConfirm}>
          Reset the lab
        </button>
      </div>
    </dialog>
  );
}
