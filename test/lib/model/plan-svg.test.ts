// The plan's timeline picture: its structure read back from the SVG text (rows,
// bars at the x and width of known runs, overlap marks, axis, legend), and one
// rendering in headless Chromium to show it is a real, non-blank image with
// the bars where the numbers say.
import { spawnSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { resolvePolicy } from '../../../lib';
import type { BackupPolicy } from '../../../lib';
import { planPolicies } from '../../../lib/model/plan';
import {
  DST_COLOUR,
  LAYOUT,
  NO_GROUP_COLOUR,
  OVERLAP_COLOUR,
  groupColours,
  planSvg,
} from '../../../lib/model/plan-svg';
import { decodePng, pixelHex } from '../../support/png';
import { requireCommands } from '../../support/services';
import { etcdPolicy } from '../engines/etcd/fixtures';
import { vitessPolicy } from '../engines/vitess/fixtures';

const HOUR = 3_600_000;
const FROM = new Date('2026-12-01T00:00:00Z');

// etcd-a 03:00-03:15 and etcd-b 03:05-03:20 (group etcd-snapshot, overlapping 03:05-03:15);
// a Vitess shard at 23:30 with a 1h window (no group, crosses the end of the day); a suspended one
const policies: BackupPolicy[] = [
  etcdPolicy(
    { mode: 'perNode', nodes: ['a', 'b'] },
    { defaults: { schedule: '0 3 * * *', stagger: { window: '10m' } } },
  ),
  vitessPolicy({
    schedules: [
      { name: 'late', schedule: '30 23 * * *', timeout: '1h', strategies: [{ keyspace: 'commerce', shards: ['-'] }] },
      { name: 'paused', suspend: true, strategies: [{ keyspace: 'customer', shards: ['-'] }] },
    ],
  }),
];
const plan = planPolicies(
  policies.map((p) => resolvePolicy(p)),
  { from: FROM, count: 3, horizon: 7 * 24 * HOUR },
);
const day = planSvg(plan, 'day');
const week = planSvg(plan, 'week');

type Attrs = Record<string, string>;
/** Every element `<tag ...>` of the SVG with its attributes, in document order. */
function elements(svg: string, tag: string, cls?: string): Attrs[] {
  return [...svg.matchAll(new RegExp(`<${tag}\\s([^>]*?)/?>`, 'g'))]
    .map((m) => Object.fromEntries([...m[1].matchAll(/([\w:-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]])))
    .filter((a) => cls === undefined || a.class === cls);
}
const texts = (svg: string, cls: string) =>
  [...svg.matchAll(new RegExp(`<text class="${cls}"[^>]*>([^<]*)`, 'g'))].map((m) => m[1]);

/** Tags open and close in order, attribute values are quoted, no raw `&` or `<` in text: well-formed enough for any SVG reader. */
function expectWellFormed(svg: string): void {
  const stack: string[] = [];
  for (const m of svg.matchAll(
    /<(\/?)([a-zA-Z][\w-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|<|&(?!(amp|lt|gt|quot|apos);)/g,
  )) {
    if (m[2] === undefined) throw new Error(`stray "${m[0]}" at ${m.index}`);
    if (m[1]) expect(stack.pop()).toBe(m[2]);
    else if (!m[4]) stack.push(m[2]);
  }
  expect(stack).toEqual([]);
}

const rowTop = (i: number) => LAYOUT.plotTop + i * LAYOUT.rowHeight;
const barTop = (i: number) => rowTop(i) + (LAYOUT.rowHeight - LAYOUT.barHeight) / 2;
/** x of an instant on the day picture: plotLeft + fraction of the day × plotWidth. */
const dayX = (hours: number) => LAYOUT.plotLeft + (hours / 24) * LAYOUT.plotWidth;
const round = (v: number) => String(Math.round(v * 100) / 100);

test('well-formed and deterministic: the same plan gives the same bytes', () => {
  expectWellFormed(day);
  expectWellFormed(week);
  expect(planSvg(plan, 'day')).toBe(day);
  expect(day).not.toMatch(/NaN|undefined|Infinity/);
  const [svg] = elements(day, 'svg');
  expect(svg.width).toBe(String(LAYOUT.width));
});

test('one row per CronJob, in plan order, labelled with its name and details', () => {
  expect(elements(day, 'g', 'row').map((g) => g['data-target'])).toEqual([
    'kube-system/etcd-a',
    'kube-system/etcd-b',
    'example/example-late-commerce-x-x',
    'example/example-paused-customer-x-x',
  ]);
  expect(texts(day, 'row-label')).toEqual([
    'etcd-a',
    'etcd-b',
    'example-late-commerce-x-x',
    'example-paused-customer-x-x',
  ]);
  expect(texts(day, 'row-detail')[0]).toBe('kube-system · 0 3 * * * UTC · 15m window · node a');
  expect(texts(day, 'suspended')).toEqual(['suspended: no runs']);
});

test('a bar per run window at its x and width; a window past the end of the picture is cut there', () => {
  const runs = elements(day, 'rect', 'run');
  const colours = groupColours(plan.targets);
  const etcdColour = [...colours.values()][0];
  expect(runs).toEqual([
    // 03:00 + 15m: x = 416 + 3/24 × 960 = 536, width = 0.25/24 × 960 = 10
    expect.objectContaining({
      x: round(dayX(3)),
      width: '10',
      y: String(barTop(0)),
      height: String(LAYOUT.barHeight),
      fill: etcdColour,
      'data-start': '2026-12-01T03:00:00Z',
      'data-end': '2026-12-01T03:15:00Z',
    }),
    expect.objectContaining({
      x: round(dayX(3 + 5 / 60)),
      width: '10',
      y: String(barTop(1)),
      fill: etcdColour,
      'data-start': '2026-12-01T03:05:00Z',
    }),
    // 23:30 + 1h, drawn up to the plot's right edge: half an hour of 40 px per hour
    expect.objectContaining({
      x: round(dayX(23.5)),
      width: '20',
      y: String(barTop(2)),
      fill: NO_GROUP_COLOUR,
      'data-end': '2026-12-02T00:30:00Z',
    }),
  ]);
  expect(Number(runs[2].x) + Number(runs[2].width)).toBe(LAYOUT.plotLeft + LAYOUT.plotWidth);
  expect(etcdColour).not.toBe(NO_GROUP_COLOUR);
});

test('overlaps are marked on both rows, over the overlapping stretch only, around the bars', () => {
  const marks = elements(day, 'rect', 'overlap');
  const stretch = {
    x: round(dayX(3 + 5 / 60)),
    width: round((10 / 60 / 24) * LAYOUT.plotWidth),
    'data-start': '2026-12-01T03:05:00Z',
    'data-end': '2026-12-01T03:15:00Z',
    stroke: OVERLAP_COLOUR,
  };
  expect(marks).toEqual([
    expect.objectContaining({ ...stretch, y: String(barTop(0) - 6) }),
    expect.objectContaining({ ...stretch, y: String(barTop(1) - 6) }),
  ]);
  expect(Number(marks[0].height)).toBeGreaterThan(LAYOUT.barHeight);
  // under the bars, so that the bars keep their colour
  expect(day.indexOf('class="overlap"')).toBeLessThan(day.indexOf('class="run"'));
  expect(elements(week, 'rect', 'overlap')).toHaveLength(2 * 7);
});

test('Vitess incremental backups: their own row, and where one overlaps the full backup of its shard a mark titled so', () => {
  const incremental = planPolicies(
    [
      resolvePolicy(
        vitessPolicy({
          schedules: [
            {
              name: 'daily',
              schedule: '0 2 * * *',
              strategies: [{ keyspace: 'commerce', shards: ['-'] }],
              incremental: { schedule: '0 */3 * * *' },
            },
          ],
        }),
      ),
    ],
    { from: FROM, count: 3, horizon: 24 * HOUR },
  );
  const svg = planSvg(incremental, 'day');
  expectWellFormed(svg);
  expect(svg).toContain('example-daily-commerce-x-x-incr');
  // the full backup runs 02:00-04:00, the incremental at 03:00-03:10
  const marks = elements(svg, 'rect', 'overlap');
  expect(marks.map((m) => [m['data-start'], m['data-end']])).toEqual([
    ['2026-12-01T03:00:00Z', '2026-12-01T03:10:00Z'],
    ['2026-12-01T03:00:00Z', '2026-12-01T03:10:00Z'],
  ]);
  expect(svg).toContain(
    '<title>overlap (full and incremental backup of one shard): example-daily-commerce-x-x and example-daily-commerce-x-x-incr',
  );
});

test('a time axis: every hour of the day, every day of the week, in UTC', () => {
  expect(texts(day, 'tick-label')).toEqual(Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, '0')}:00`));
  expect(elements(day, 'line', 'tick day')).toEqual([expect.objectContaining({ x1: String(LAYOUT.plotLeft) })]);
  expect(texts(week, 'day-label')).toEqual([
    'Tue 2026-12-01',
    'Wed 2026-12-02',
    'Thu 2026-12-03',
    'Fri 2026-12-04',
    'Sat 2026-12-05',
    'Sun 2026-12-06',
    'Mon 2026-12-07',
  ]);
  expect(texts(day, 'axis-unit')).toEqual(['UTC']);
  expect(elements(week, 'rect', 'run').filter((r) => r['data-start']?.endsWith('T03:00:00Z'))).toHaveLength(7);
});

test('a legend: each serialization group in its colour, no group, the overlap mark', () => {
  const legend = day.slice(day.indexOf('<g class="legend">'));
  expect(
    [...legend.matchAll(/<rect [^>]*fill="([^"]+)"[^>]*\/><text [^>]*>([^<]+)</g)].map((m) => [m[1], m[2]]),
  ).toEqual([
    [[...groupColours(plan.targets).values()][0], 'group etcd-snapshot (scope cluster, namespace kube-system)'],
    [NO_GROUP_COLOUR, 'no serialization group'],
    ['url(#overlap-hatch)', 'overlapping run windows (see the plan&apos;s warnings)'],
  ]);
});

test('a daylight-saving change that skips a run: a dashed line on that row at the change, and a legend entry', () => {
  // 02:30 in Berlin does not exist on 2027-03-28 (01:00Z the clocks go from 02:00 to 03:00)
  const berlin = etcdPolicy({}, { defaults: { schedule: '30 2 * * *', timeZone: 'Europe/Berlin' } });
  const from = new Date('2027-03-27T12:00:00Z');
  const svg = planSvg(planPolicies([resolvePolicy(berlin)], { from, count: 1, horizon: 24 * HOUR }), 'day');
  expectWellFormed(svg);
  expect(elements(svg, 'rect', 'run')).toEqual([]);
  // 13 hours after the start of the picture
  expect(elements(svg, 'line', 'dst')).toEqual([
    expect.objectContaining({
      x1: round(dayX(13)),
      y1: String(rowTop(0) + 3),
      stroke: DST_COLOUR,
      'data-at': '2027-03-28T01:00:00Z',
    }),
  ]);
  expect(texts(svg, 'dst-label')).toEqual(['DST skipped']);
  expect(svg).toContain('daylight-saving change that skips or repeats a run');
  expect(day).not.toContain('class="dst"');
});

describe('rendered by headless Chromium', () => {
  const work = mkdtempSync(join(tmpdir(), 'bcj-plan-svg-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  test("a PNG of the picture's size, mostly white but far from blank, with the bars where the SVG puts them", () => {
    const { chromium } = requireCommands('chromium');
    const [svg] = elements(day, 'svg');
    const [width, height] = [Number(svg.width), Number(svg.height)];
    writeFileSync(join(work, 'plan.svg'), day);
    const shot = join(work, 'plan.png');
    const r = spawnSync(
      chromium,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--hide-scrollbars',
        '--force-device-scale-factor=1',
        `--screenshot=${shot}`,
        `--window-size=${width},${height}`,
        `file://${join(work, 'plan.svg')}`,
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect({ status: r.status, error: r.error }).toEqual({ status: 0, error: undefined });
    const png = decodePng(readFileSync(shot));
    expect([png.width, png.height]).toEqual([width, height]);
    let ink = 0;
    for (let i = 0; i < png.pixels.length; i += png.channels)
      if (png.pixels[i] < 240 || png.pixels[i + 1] < 240 || png.pixels[i + 2] < 240) ink += 1;
    const share = ink / (width * height);
    expect(share).toBeGreaterThan(0.03);
    expect(share).toBeLessThan(0.5);
    // the middle of each bar has the bar's colour: the picture is drawn where the numbers say
    for (const bar of elements(day, 'rect', 'run')) {
      const x = Math.floor(Number(bar.x) + Number(bar.width) / 2);
      const y = Math.floor(Number(bar.y) + Number(bar.height) / 2);
      expect({ at: [x, y], colour: pixelHex(png, x, y) }).toEqual({ at: [x, y], colour: bar.fill.toLowerCase() });
    }
    // and the background between the rows' bars is not
    expect(pixelHex(png, LAYOUT.plotLeft + 2, barTop(2) + 9)).not.toBe(NO_GROUP_COLOUR.toLowerCase());
  });
});
