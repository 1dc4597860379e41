import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handMade, recorded } from '../../testing/histories';
import { escapeXml } from '../core/svg-markup';
import { exportTheme } from './export-theme';
import { buildTimeline } from './timeline';
import { describeTimeline, PRESENTER_METRICS } from './timeline-layout';
import { timelineToSvg } from './timeline-svg';
import { PALETTES } from './timeline-svg-theme';

/**
 * A small well-formedness check, enough for what timelineToSvg writes (no comments, CDATA or
 * doctype): tags balance, attributes are quoted and unique, text and values hold no raw `<` and
 * only known entities. Returns the problems found, none for a well-formed document.
 */
function xmlProblems(xml: string): string[] {
  const problems: string[] = [];
  const body = xml.replace(/^<\?xml [^?]*\?>\s*/, '');
  const stack: string[] = [];
  const entity = /&(?!(amp|lt|gt|quot|apos);)/;
  let rest = body;
  let roots = 0;
  while (rest.length > 0) {
    const open = rest.indexOf('<');
    const text = open === -1 ? rest : rest.slice(0, open);
    if (entity.test(text) || text.includes('>')) problems.push(`bad text: ${text.slice(0, 40)}`);
    if (stack.length === 0 && text.trim() !== '') problems.push(`text outside the root: ${text.slice(0, 40)}`);
    if (open === -1) break;
    const tag = /^<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/.exec(rest.slice(open));
    if (!tag) {
      problems.push(`bad tag at: ${rest.slice(open, open + 60)}`);
      break;
    }
    const [whole, closing, name = '', attrs = '', selfClosing] = tag;
    const names = [...attrs.matchAll(/([\w:-]+)="([^"]*)"/g)].map((m) => {
      if (entity.test(m[2] ?? '')) problems.push(`bad value in ${name}: ${m[2]}`);
      return m[1];
    });
    if (new Set(names).size !== names.length) problems.push(`repeated attribute in ${name}`);
    if (closing) {
      if (stack.pop() !== name) problems.push(`</${name}> closes nothing open`);
    } else {
      if (stack.length === 0) roots += 1;
      if (!selfClosing) stack.push(name);
    }
    rest = rest.slice(open + whole.length);
  }
  if (stack.length > 0) problems.push(`unclosed: ${stack.join(', ')}`);
  if (roots !== 1) problems.push(`${roots} root elements`);
  return problems;
}

const events = recorded('fenced');
const end = (events.at(-1)?.at ?? 0) + 500;
const timeline = buildTimeline(events, end);
const count = (text: string, pattern: RegExp) => [...text.matchAll(pattern)].length;

describe('the timeline as an SVG document', () => {
  const svg = timelineToSvg(timeline, { title: 'Fenced: the pause' });

  test('is a well-formed, standalone, labelled image', () => {
    assert.deepEqual(xmlProblems(svg), []);
    assert.match(svg, /<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="1280" height="\d+" viewBox="0 0 1280 \d+"/);
    assert.match(svg, /role="img"/);
    assert.match(svg, /<title id="timeline-title">Fenced: the pause<\/title>/);
    assert.match(svg, /font-family="system-ui, sans-serif"/);
    assert.doesNotMatch(svg, /<style|@import|href=|class=/, 'nothing to load, no stylesheet');
  });

  test('one lane per holder, named on the left, and the database lane', () => {
    assert.equal(count(svg, /<g data-lane="/g), timeline.lanes.length + 1);
    assert.match(svg, /<g data-lane="A">/);
    assert.match(svg, /<g data-lane="B">/);
    assert.match(svg, /<g data-lane="database">/);
  });

  test('each write is a mark with its own explanation, accepted and rejected told apart in words', () => {
    const writes = timeline.lanes.flatMap((lane) => lane.writes);
    const marks = [
      ...svg.matchAll(/<g data-mark="write-(accepted|rejected)" data-event-id="(\d+)" data-key="write:\2">(.*?)<\/g>/g),
    ];
    assert.equal(marks.length, writes.length);
    for (const [, outcome, id, inner = ''] of marks) {
      assert.equal(count(inner, /<title>/g), 1, `write ${id} has one title`);
      assert.ok(inner.startsWith('<title>'), 'the title is the first child');
      assert.equal(outcome, writes.find((w) => w.eventId === Number(id))?.outcome);
    }
    assert.match(
      svg,
      /<title>A&apos;s write &quot;A-2&quot; with token 62: rejected as stale\. [^<]*0 rows, the row holds token 63<\/title>/,
    );
  });

  test('lease bars carry their token; the belief, the freeze and the row are drawn', () => {
    assert.match(svg, />token 62</);
    assert.match(svg, />token 63</);
    assert.match(svg, /data-mark="belief"/);
    assert.match(svg, /data-mark="pause"/);
    assert.match(svg, />B-1 · token 63</);
    assert.match(svg, /fill="url\(#hatch-belief\)"/);
  });

  test("the axis reads the database's clock, and a legend explains the shapes", () => {
    const day = new Date(timeline.from).toISOString().slice(0, 11);
    const ticks = [...svg.matchAll(/>(\d\d:\d\d:\d\d)</g)].map(([, clock]) => Date.parse(`${day}${clock}Z`));
    assert.ok(ticks.length >= 2, 'clock ticks on the axis');
    for (const at of ticks) assert.ok(at >= timeline.from && at <= timeline.to, 'each within the history');
    assert.match(svg, /data-legend/);
    assert.match(svg, />write rejected/);
  });

  test("every mark's title is the screen's words for it (describeTimeline), and every mark is drawn", () => {
    const titles = [
      ...svg.matchAll(/<g data-mark="[^"]+"(?: data-event-id="\d+")? data-key="([^"]+)"><title>([^<]*)<\/title>/g),
    ];
    const words = describeTimeline(timeline, new Set());
    assert.deepEqual(titles.map(([, key]) => key).sort(), words.map((w) => escapeXml(w.key)).sort());
    for (const [, key, title] of titles) {
      const mark = words.find((w) => escapeXml(w.key) === key);
      assert.ok(mark);
      assert.equal(title, escapeXml(`${mark.title}. ${mark.lines.join('. ')}`));
    }
  });

  test('a mark the checker flagged says so and wears a ⚠', () => {
    const write = timeline.lanes[0]?.writes[1];
    assert.ok(write);
    const flagged = timelineToSvg(timeline, { title: 'flagged', flagged: new Set([write.eventId]) });
    assert.match(flagged, new RegExp(`data-key="write:${write.eventId}"><title>Violation: A&apos;s write`));
    assert.equal(count(flagged, />⚠</g), 1);
  });

  test('the presenter measures: lane names, tokens and write labels of 20 px and more', () => {
    const big = timelineToSvg(timeline, { title: 'big', metrics: PRESENTER_METRICS });
    assert.deepEqual(xmlProblems(big), []);
    const sizes = (pattern: RegExp) => [...big.matchAll(pattern)].map((m) => Number(m[1]));
    const token = sizes(/font-size="(\d+)"[^>]*>token \d+</g);
    assert.ok(token.length > 0 && token.every((px) => px >= 20));
    const name = sizes(/<g data-lane-label=""><title>A<\/title><text [^>]*font-size="(\d+)"/g);
    assert.ok(name.length === 1 && name.every((px) => px >= 20));
  });

  test('the same timeline gives the same document; the dark theme only changes colours', () => {
    assert.equal(timelineToSvg(structuredClone(timeline), { title: 'Fenced: the pause' }), svg);
    const dark = timelineToSvg(timeline, { title: 'Fenced: the pause', theme: 'dark' });
    assert.notEqual(dark, svg);
    assert.equal(dark.replace(/#[0-9a-f]{6}/g, '#'), svg.replace(/#[0-9a-f]{6}/g, '#'));
    assert.match(dark, new RegExp(`<rect x="0" y="0" width="1280" height="\\d+" fill="${PALETTES.dark.background}"/>`));
  });
});

test('the export theme: as on screen, or either on request', () => {
  assert.equal(exportTheme('screen', true), 'dark');
  assert.equal(exportTheme('screen', false), 'light');
  assert.equal(exportTheme('light', true), 'light');
  assert.equal(exportTheme('dark', false), 'dark');
});

describe('hostile and edge-case input', () => {
  const { at, ev } = handMade(Date.UTC(2026, 0, 1, 12, 0, 0));
  const hostile = `<script>&"x'</script>\u0000`;

  test('names, values and the title are escaped, and the document stays well-formed', () => {
    const history = [
      ev(1, 0, hostile, 'lease_acquired', { token: 5, detail: { expiresAt: new Date(at(3)).toISOString() } }),
      ev(2, 1, hostile, 'write_accepted', { token: 5, detail: { value: '</svg><b a="1">' } }),
      ev(3, 2, 'B', 'write_rejected', { token: 4, storedToken: 5, detail: { value: '&amp;' } }),
    ];
    const svg = timelineToSvg(buildTimeline(history, at(4)), { title: 'A & B <"quoted">', theme: 'dark' });
    assert.deepEqual(xmlProblems(svg), []);
    assert.doesNotMatch(svg, /<script/);
    assert.equal(svg.includes('\u0000'), false, 'a character XML forbids is dropped');
    assert.match(svg, /<title id="timeline-title">A &amp; B &lt;&quot;quoted&quot;&gt;<\/title>/);
    assert.match(svg, new RegExp(`<g data-lane="${escapeXml(hostile)}">`));
    assert.match(svg, /&amp;amp;/, 'an entity in a value is shown as typed, not interpreted');
  });

  test('an empty timeline, or a window inside it, still makes a valid document', () => {
    const empty = timelineToSvg(buildTimeline([], at(0)), { title: 'nothing yet', width: 10 });
    assert.deepEqual(xmlProblems(empty), []);
    assert.equal(count(empty, /<g data-lane="/g), 1, 'only the database lane');
    const pause = timeline.lanes[0]?.pauses[0];
    assert.ok(pause);
    // A stretch inside A's freeze, before B took over: nothing was written, the freeze is drawn.
    const window = timelineToSvg(timeline, {
      title: 'frozen',
      from: pause.from + 500,
      to: pause.from + 700,
      width: 800,
    });
    assert.deepEqual(xmlProblems(window), []);
    assert.equal(count(window, /data-mark="write-/g), 0, 'no write in that stretch');
    assert.equal(count(window, /data-mark="pause"/g), 1);
  });

  test('the checker of this test finds broken markup', () => {
    assert.notDeepEqual(xmlProblems('<svg><g></svg>'), []);
    assert.notDeepEqual(xmlProblems('<svg a="1" a="2"/>'), []);
    assert.notDeepEqual(xmlProblems('<svg>a & b</svg>'), []);
    assert.notDeepEqual(xmlProblems('<svg/><svg/>'), []);
  });
});
