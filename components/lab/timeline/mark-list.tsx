'use client';

import { type KeyboardEvent, memo, useLayoutEffect, useRef } from 'react';
import { type MarkText, markLabel } from '@/lib/model/timeline/timeline-layout';
import type { Move } from './mark-neighbours';
import { MOVE_KEYS } from './mark-order';

type Props = {
  /** The marks in the DOM (the drawn stretch's, on the lanes on screen, and the focused one), in list order. */
  items: readonly MarkText[];
  /** Where each stands in the whole timeline, and how many marks it has. */
  positionOf: (mark: MarkText, index: number) => number;
  total: number;
  /** Where a mark's lane is (CSS px from the drawing's top), so that focusing it scrolls its lane into view. */
  laneTopOf: (mark: MarkText) => number;
  /** The roving tab stop: the mark last focused (or, when not listed, the first listed). */
  current: string | undefined;
  /** Whether `current` should take the keyboard focus once it is in the DOM (after a move). */
  focusPending: boolean;
  onFocusMark: (mark: MarkText) => void;
  onMove: (move: Move) => void;
  onSelect: (key: string) => void;
  onLeave: () => void;
};

/**
 * Every mark as a button, for the keyboard and screen readers: the canvas draws them, this list
 * lets a person reach them. Visually hidden (the focus ring is drawn on the canvas); one Tab stop
 * (roving tabindex); arrow keys, Home and End move between marks. Keys pressed here stop here: the
 * page's single-key shortcuts (pan, zoom, the presenter's steps) do not fire under a focused mark.
 */
export const MarkList = memo(function MarkList(props: Props) {
  const { items, current, focusPending } = props;
  const list = useRef<HTMLUListElement>(null);
  const tabStop = items.some((m) => m.key === current) ? current : items[0]?.key;

  useLayoutEffect(() => {
    if (!focusPending || current === undefined) return;
    const button = list.current?.querySelector<HTMLButtonElement>(`[data-mark="${CSS.escape(current)}"]`);
    if (button && document.activeElement !== button) button.focus({ preventScroll: false });
  }, [current, focusPending]);

  const onKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    if (event.key === 'Tab' || event.key === 'Escape') return;
    // Nothing typed on a mark reaches the window's shortcuts.
    event.stopPropagation();
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const move = MOVE_KEYS[event.key];
    if (!move) return;
    event.preventDefault();
    props.onMove(move);
  };

  let tie = 0;
  return (
    <ul
      ref={list}
      aria-label="Marks on the timeline"
      className="absolute top-0 left-0 m-0 h-0 w-0 list-none p-0"
      onKeyDown={onKeyDown}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) props.onLeave();
      }}
    >
      {items.map((mark, i) => {
        const previous = items[i - 1];
        tie = previous && previous.lane === mark.lane && previous.at === mark.at ? tie + 1 : 0;
        return (
          <MarkItem
            key={mark.key}
            mark={mark}
            name={markLabel(mark)}
            setSize={props.total}
            position={props.positionOf(mark, tie)}
            top={props.laneTopOf(mark)}
            tabStop={mark.key === tabStop}
            onFocusMark={props.onFocusMark}
            onSelect={props.onSelect}
          />
        );
      })}
    </ul>
  );
});

type ItemProps = {
  mark: MarkText;
  name: string;
  setSize: number;
  position: number;
  top: number;
  tabStop: boolean;
  onFocusMark: (mark: MarkText) => void;
  onSelect: (key: string) => void;
};

/** One mark's button; drawn again only when what it says or where it stands changes, not every second. */
const MarkItem = memo(
  function MarkItem({ mark, name, setSize, position, top, tabStop, onFocusMark, onSelect }: ItemProps) {
    return (
      <li aria-setsize={setSize} aria-posinset={position} className="sr-only" style={{ top }}>
        <button
          type="button"
          tabIndex={tabStop ? 0 : -1}
          aria-label={name}
          data-mark={mark.key}
          data-flagged={mark.flagged ? 'true' : undefined}
          onFocus={() => onFocusMark(mark)}
          onClick={() => onSelect(mark.key)}
        >
          {mark.title}
        </button>
      </li>
    );
  },
  (a, b) =>
    a.name === b.name &&
    a.setSize === b.setSize &&
    a.position === b.position &&
    a.top === b.top &&
    a.tabStop === b.tabStop &&
    a.mark.key === b.mark.key &&
    a.mark.title === b.mark.title &&
    a.mark.at === b.mark.at &&
    a.onFocusMark === b.onFocusMark &&
    a.onSelect === b.onSelect,
);
