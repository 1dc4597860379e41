import type { z } from 'zod';

/*
 * A refused input, in words a person reads: the field and the rule. The schemas' own messages
 * already name their field ("pause lengths must be at least 100 ms"), so they are kept as they are;
 * zod's defaults ("Invalid input: expected number, received string" at grid.pausesMs.0) are turned
 * into the field's name and the rule, never a path into the payload.
 */

const ZOD_DEFAULT = /^(Invalid|Unrecognized|Too (big|small)|Expected)/;

const EXPECTED: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'text',
  boolean: 'yes or no',
  array: 'a list',
  object: 'a set of fields',
};

/** `pausesMs` → "pauses (ms)", `labId` → "lab id"; list positions are left out. */
export function fieldInWords(path: readonly PropertyKey[]): string {
  const key = [...path].reverse().find((part): part is string => typeof part === 'string');
  if (key === undefined) return 'the input';
  const unit = key.match(/(Ms|Percent)$/)?.[1];
  const stem = unit ? key.slice(0, -unit.length) : key;
  const words = stem.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return unit ? `${words} (${unit === 'Ms' ? 'ms' : '%'})` : words;
}

export function issueInWords(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return 'the input was refused';
  if (!ZOD_DEFAULT.test(issue.message)) return issue.message;
  const field = fieldInWords(issue.path);
  switch (issue.code) {
    case 'invalid_type':
      if (/received undefined$/.test(issue.message)) return `${field} is missing`;
      return `${field} must be ${EXPECTED[issue.expected] ?? issue.expected}`;
    case 'unrecognized_keys':
      return `${field === 'the input' ? 'the input' : field} has ${issue.keys.length === 1 ? 'a field' : 'fields'} it does not take: ${issue.keys.join(', ')}`;
    case 'too_small':
      return `${field} must be at least ${String(issue.minimum)}`;
    case 'too_big':
      return `${field} must be at most ${String(issue.maximum)}`;
    default:
      return `${field} is not valid`;
  }
}
