'use client';

import { useId } from 'react';

const inputClass =
  'w-24 rounded-md border border-slate-300 bg-white px-2 py-1 font-mono text-base dark:border-slate-700 dark:bg-slate-900';

/** A labelled number input, as the controls and the chaos panel use them. */
export function NumberField(props: {
  label: string;
  value: number;
  onChange: (value: number) => void;
  min?: number;
  max?: number;
  step?: number;
  /** The id of a note that explains the field, read out with it. */
  describedBy?: string;
}) {
  const id = useId();
  return (
    <label htmlFor={id} className="grid gap-1 text-sm font-medium">
      {props.label}
      <input
        id={id}
        className={inputClass}
        type="number"
        min={props.min}
        max={props.max}
        step={props.step}
        aria-describedby={props.describedBy}
        value={props.value}
        onChange={(event) => props.onChange(Number(event.target.value))}
      />
    </label>
  );
}
