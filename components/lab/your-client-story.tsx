'use client';

import { useCallback, useEffect, useMemo, useState } from 'react';
import { clientPauseStoryStatusAction, playClientPauseStoryAction } from '@/app/actions';
import { clientLanes } from '@/lib/model/checker/client-faults';
import { clientStoryFacts, clientStoryProgress } from '@/lib/model/walkthrough/client-pause-story';
import { useLabStore } from './lab-store-provider';

/** How often the page asks the server whether its story has ended (its progress comes from the live feed). */
const STATUS_EVERY_MS = 1_000;

type Story = { mark: number } & (
  | { state: 'running' }
  | { state: 'done'; words: string }
  | { state: 'failed'; message: string }
);

/**
 * The "Your client" panel's one button (issue 36): the pause story with the person's own client as A,
 * told on the server (lib/server/client-pause-story.ts) through the lab's own commands. Its progress
 * is read from the events the lab recorded since it began; how it ended (or why it stopped) from the
 * server. Shown to whoever may drive the lab; pressable while the panel lists A as running.
 */
export function YourClientStory() {
  const lab = useLabStore((s) => s.lab);
  const kind = useLabStore((s) => s.kind);
  const events = useLabStore((s) => s.events);
  const [story, setStory] = useState<Story | undefined>(undefined);
  const [refusal, setRefusal] = useState<string | undefined>(undefined);
  const [pressed, setPressed] = useState(false);
  // A as the panel lists it (live): the button is offered once it is listed, and pressable while it runs.
  const laneA = useMemo(() => clientLanes(events).find((lane) => lane.actor === 'A'), [events]);
  const aRuns = laneA?.running === true;
  const progress = useMemo(
    () => (story ? clientStoryProgress(clientStoryFacts(events, story.mark, kind)) : undefined),
    [events, kind, story],
  );
  const running = pressed || story?.state === 'running';

  useEffect(() => {
    if (story?.state !== 'running') return;
    const mark = story.mark;
    const timer = setInterval(() => {
      void clientPauseStoryStatusAction({ lab }).then(
        (result) => {
          if (!result.ok)
            return setStory({ mark, state: 'failed', message: `The story stopped: ${result.error.message}.` });
          const now = result.data;
          if (now.state === 'none')
            return setStory({ mark, state: 'failed', message: 'The story stopped: this server no longer runs it.' });
          if (now.mark !== mark || now.state === 'running') return;
          setStory(
            now.state === 'done'
              ? { mark, state: 'done', words: now.words }
              : { mark, state: 'failed', message: now.message },
          );
        },
        // The server could not be reached this time: asked again at the next tick.
        () => undefined,
      );
    }, STATUS_EVERY_MS);
    return () => clearInterval(timer);
  }, [lab, story]);

  const play = useCallback(async () => {
    setPressed(true);
    setRefusal(undefined);
    try {
      const result = await playClientPauseStoryAction({ lab });
      if (result.ok) setStory({ mark: result.data.mark, state: 'running' });
      else setRefusal(result.error.message);
    } catch {
      // The action threw only if the server could not be reached: its refusals come back as results.
      setRefusal('the server could not be reached');
    } finally {
      setPressed(false);
    }
  }, [lab]);

  if (!laneA && !story && refusal === undefined) return null;
  const words =
    refusal !== undefined
      ? `Not played: ${refusal}.`
      : story?.state === 'failed'
        ? story.message
        : story?.state === 'done'
          ? story.words
          : progress;
  return (
    <div className="space-y-1" data-testid="your-client-story">
      {laneA ? (
        <button
          type="button"
          className="rounded-md bg-sky-700 px-3 py-1.5 font-semibold text-white disabled:opacity-50"
          disabled={!aRuns || running}
          onClick={() => void play()}
        >
          Play the pause story with your client as A
        </button>
      ) : null}
      <p
        role="status"
        className={
          story?.state === 'failed' || refusal !== undefined ? 'text-sm text-red-800 dark:text-red-300' : 'text-sm'
        }
      >
        {words ?? (aRuns ? '' : 'Start your client as A to play the story.')}
      </p>
    </div>
  );
}
