import { Glyph } from '@/components/glyph';
import { isFencedKind, LABS, type LabId } from '@/lib/model/lab/lab-kinds';

/**
 * A lab's name as the lab picker and the home page list it: ✓ before a lab whose fencing holds, ✗ before one
 * broken on purpose. The mark is for the eye; a screen reader hears the same in words after the name
 * ("Per-process counter (breaks)"), since a name alone does not always say it.
 */
export function LabTitle({ lab }: { lab: LabId }) {
  const holds = isFencedKind(lab);
  return (
    <>
      <Glyph>{holds ? '✓' : '✗'}</Glyph> {LABS[lab].title}
      <span className="sr-only"> ({holds ? 'holds' : 'breaks'})</span>
    </>
  );
}
