/** The badge that says whether this browser drives the lab or watches it. */
export function DriveStatus({ drives, label, large = false }: { drives: boolean; label: string; large?: boolean }) {
  return (
    <span
      data-testid="drive-status"
      className={`rounded-full px-3 py-1 font-semibold ${large ? 'text-lg' : 'text-sm'} ${
        drives
          ? 'bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100'
          : 'bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100'
      }`}
    >
      {label}
    </span>
  );
}
