/** Percentiles and a goal line, for the benchmark report. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

export type Figure = { name: string; value: string; goal: string; met: boolean | undefined; note?: string };

export function printFigures(title: string, figures: Figure[]): void {
  console.log(`\n${title}`);
  const width = Math.max(...figures.map((f) => f.name.length));
  for (const f of figures) {
    const verdict = f.met === undefined ? '' : f.met ? '  met' : '  MISSED';
    console.log(
      `  ${f.name.padEnd(width)}  ${f.value.padStart(12)}   goal ${f.goal}${verdict}${f.note ? `  (${f.note})` : ''}`,
    );
  }
}
