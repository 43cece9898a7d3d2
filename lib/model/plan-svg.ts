/**
 * The plan as a timeline picture (`plan --svg FILE`): one row per CronJob, a
 * bar per run window (start + timeout), coloured by serialization group,
 * overlapping windows hatched in red, a UTC time axis and a legend. Pure and
 * deterministic: the same plan gives the same bytes.
 */
import { formatDuration } from '../units';
import type { Plan, PlanRun, PlanTarget } from './plan';
import { runWindow, targetName } from './plan-text';

export type PlanSpan = 'day' | 'week';

const HOUR = 3_600_000;
export const SPAN_MS: Record<PlanSpan, number> = { day: 24 * HOUR, week: 7 * 24 * HOUR };

/** Layout, in pixels. */
export const LAYOUT = {
  width: 1400,
  plotLeft: 416,
  plotWidth: 960,
  plotTop: 104,
  rowHeight: 40,
  barHeight: 18,
  /** Bars are at least this wide, so that a short run stays visible. */
  minBarWidth: 1,
  legendRowHeight: 22,
} as const;

/** Okabe-Ito and Tol colours, distinct for colour-blind readers; yellow and black left out (contrast). */
const PALETTE = [
  '#0072B2',
  '#E69F00',
  '#009E73',
  '#CC79A7',
  '#56B4E9',
  '#D55E00',
  '#332288',
  '#117733',
  '#882255',
  '#44AA99',
];
export const NO_GROUP_COLOUR = '#8A94A0';
export const OVERLAP_COLOUR = '#D7191C';
export const DST_COLOUR = '#B35806';
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** Pixel values with at most two decimals. */
const px = (v: number): string => String(Math.round(v * 100) / 100);

function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const clip = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** The colour of each serialization group (namespace, name, scope), in order of first appearance. */
export function groupColours(targets: readonly PlanTarget[]): Map<string, string> {
  const colours = new Map<string, string>();
  for (const t of targets) {
    const key = groupKey(t);
    if (key !== undefined && !colours.has(key)) colours.set(key, PALETTE[colours.size % PALETTE.length]);
  }
  return colours;
}

function groupKey(t: PlanTarget): string | undefined {
  const g = t.serializationGroup;
  return g && JSON.stringify([t.namespace, g.name, g.scope]);
}

/** The picture of [plan.from, plan.from + span). */
export function planSvg(plan: Plan, span: PlanSpan): string {
  const start = plan.from;
  const end = start + SPAN_MS[span];
  const L = LAYOUT;
  const x = (t: number) => L.plotLeft + ((t - start) / (end - start)) * L.plotWidth;
  const rowTop = (i: number) => L.plotTop + i * L.rowHeight;
  const plotBottom = rowTop(plan.targets.length);
  const colours = groupColours(plan.targets);
  const colourOf = (t: PlanTarget) => colours.get(groupKey(t) ?? '') ?? NO_GROUP_COLOUR;
  const visible = (r: PlanRun) => r.start < end && r.end > start;
  const bar = (r: PlanRun, row: number, cls: string, extra: string, grow = 0) => {
    const left = x(Math.max(r.start, start));
    const width = Math.max(x(Math.min(r.end, end)) - left, L.minBarWidth);
    const top = rowTop(row) + (L.rowHeight - L.barHeight) / 2 - grow;
    return `<rect class="${cls}" x="${px(left)}" y="${px(top)}" width="${px(width)}" height="${px(L.barHeight + 2 * grow)}" ${extra}>`;
  };

  const out: string[] = [];
  const legend = legendItems(plan, colours);
  const legendTop = plotBottom + 28;
  const height = legendTop + legend.rows * L.legendRowHeight + 16;
  const overlapCount = plan.overlaps.length;
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${L.width}" height="${height}" viewBox="0 0 ${L.width} ${height}" font-family="DejaVu Sans, Verdana, sans-serif">`,
  );
  out.push(`<title>backup-cronjobs plan ${escapeXml(runWindow({ start, end }))} UTC</title>`);
  out.push(
    '<defs><pattern id="overlap-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">' +
      `<rect width="6" height="6" fill="${OVERLAP_COLOUR}" fill-opacity="0.25"/><line x1="0" y1="0" x2="0" y2="6" stroke="${OVERLAP_COLOUR}" stroke-width="3"/></pattern></defs>`,
  );
  out.push(`<rect class="background" x="0" y="0" width="${L.width}" height="${height}" fill="#ffffff"/>`);
  out.push(
    `<text class="heading" x="16" y="28" font-size="18" font-weight="bold" fill="#1b1f24">Backup plan, ${span === 'day' ? 'one day' : 'one week'}: ${dayTime(start)} – ${dayTime(end)} UTC</text>`,
  );
  out.push(
    `<text class="summary" x="16" y="50" font-size="12" fill="#57606a">${plan.targets.length} CronJob${plan.targets.length === 1 ? '' : 's'} · ` +
      `${overlapCount} overlap warning${overlapCount === 1 ? '' : 's'} · bars are run windows (start + timeout)</text>`,
  );

  // rows: background bands and labels
  out.push('<g class="rows">');
  plan.targets.forEach((t, i) => {
    const top = rowTop(i);
    out.push(`<g class="row" data-target="${escapeXml(targetName(t))}">`);
    if (i % 2 === 0)
      out.push(`<rect class="band" x="0" y="${top}" width="${L.width}" height="${L.rowHeight}" fill="#f6f8fa"/>`);
    out.push(
      `<text class="row-label" x="16" y="${top + 17}" font-size="13" fill="#1b1f24">${escapeXml(clip(t.name, 54))}<title>${escapeXml(targetName(t))}</title></text>`,
    );
    const detail = [
      t.namespace,
      `${t.schedule.resolved} ${t.schedule.zone}`,
      `${formatDuration(t.windowSeconds)} window`,
      ...(t.node !== undefined ? [`node ${t.node}`] : []),
    ].join(' · ');
    out.push(
      `<text class="row-detail" x="16" y="${top + 32}" font-size="11" fill="#57606a">${escapeXml(clip(detail, 66))}</text>`,
    );
    out.push('</g>');
  });
  out.push('</g>');

  out.push(axis(start, end, span, x, plotBottom));

  // overlap marks on both rows of each pair, under the bars: a red hatched band around them
  out.push('<g class="overlaps">');
  for (const o of plan.overlaps) {
    const rows = o.targets[0] === o.targets[1] ? [o.targets[0]] : [...o.targets];
    const what =
      o.reason === 'self'
        ? 'runs of one CronJob'
        : o.reason === 'group'
          ? 'serialization group'
          : o.reason === 'shard'
            ? 'full and incremental backup of one shard'
            : 'same node';
    for (const s of o.stretches.filter(visible)) {
      for (const row of rows) {
        const title = `overlap (${what}): ${o.targets.map((k) => plan.targets[k].name).join(' and ')} ${runWindow(s)} UTC`;
        out.push(
          `${bar(s, row, 'overlap', `fill="url(#overlap-hatch)" stroke="${OVERLAP_COLOUR}" stroke-width="1.5" data-start="${iso(s.start)}" data-end="${iso(s.end)}"`, 6)}<title>${escapeXml(title)}</title></rect>`,
        );
      }
    }
  }
  out.push('</g>');

  // daylight-saving changes that skip or repeat runs: a dashed line on the row, at the change
  out.push('<g class="dst-marks">');
  for (const d of plan.dst) {
    if (d.change.at < start || d.change.at >= end) continue;
    const top = rowTop(d.target);
    const title = `${d.timeZone} ${d.kind === 'skipped' ? 'skips' : 'repeats'} ${d.localTimes.map((l) => l.slice(11)).join(', ')} local time: ${d.kind === 'skipped' ? 'no run' : 'one run, at the first'}`;
    out.push(
      `<line class="dst" x1="${px(x(d.change.at))}" y1="${top + 3}" x2="${px(x(d.change.at))}" y2="${top + L.rowHeight - 3}" stroke="${DST_COLOUR}" stroke-width="2" stroke-dasharray="4 2" data-at="${iso(d.change.at)}"><title>${escapeXml(title)}</title></line>`,
    );
    out.push(
      `<text class="dst-label" x="${px(x(d.change.at) + 4)}" y="${top + 12}" font-size="10" fill="${DST_COLOUR}">DST ${d.kind}</text>`,
    );
  }
  out.push('</g>');

  // bars
  out.push('<g class="runs">');
  plan.targets.forEach((t, i) => {
    if (t.suspended) {
      out.push(
        `<text class="suspended" x="${L.plotLeft + 8}" y="${rowTop(i) + 25}" font-size="12" font-style="italic" fill="#57606a">suspended: no runs</text>`,
      );
      return;
    }
    for (const r of t.runs.filter(visible)) {
      out.push(
        `${bar(r, i, 'run', `rx="2" fill="${colourOf(t)}" data-start="${iso(r.start)}" data-end="${iso(r.end)}"`)}<title>${escapeXml(`${t.name}: ${runWindow(r)} UTC`)}</title></rect>`,
      );
    }
  });
  out.push('</g>');

  out.push(legend.svg(legendTop));
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
/** `Tue 2026-12-01 00:00` */
const dayTime = (ms: number) =>
  `${WEEKDAYS[new Date(ms).getUTCDay()]} ${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')}`;
const hh = (ms: number) => String(new Date(ms).getUTCHours()).padStart(2, '0');

/** Hour lines and labels (day), or day and 6-hour lines (week), through the rows. */
function axis(start: number, end: number, span: PlanSpan, x: (t: number) => number, plotBottom: number): string {
  const L = LAYOUT;
  const out = ['<g class="axis">'];
  out.push(
    `<rect class="plot-frame" x="${L.plotLeft}" y="${L.plotTop}" width="${L.plotWidth}" height="${plotBottom - L.plotTop}" fill="none" stroke="#d0d7de"/>`,
  );
  const step = span === 'day' ? HOUR : 6 * HOUR;
  for (let t = Math.ceil(start / step) * step; t < end; t += step) {
    const midnight = new Date(t).getUTCHours() === 0;
    const major = midnight || (span === 'day' && new Date(t).getUTCHours() % 6 === 0);
    out.push(
      `<line class="${midnight ? 'tick day' : 'tick'}" x1="${px(x(t))}" y1="${L.plotTop - 6}" x2="${px(x(t))}" y2="${plotBottom}" stroke="${major ? '#8c959f' : '#d8dee4'}" stroke-width="${midnight ? 1.5 : 1}"/>`,
    );
    const label = span === 'day' ? `${hh(t)}:00` : midnight ? '' : hh(t);
    if (label)
      out.push(
        `<text class="tick-label" x="${px(x(t))}" y="${L.plotTop - 10}" font-size="11" text-anchor="middle" fill="#57606a">${label}</text>`,
      );
    if (midnight) {
      const d = new Date(t);
      const date = `${WEEKDAYS[d.getUTCDay()]} ${d.toISOString().slice(0, 10)}`;
      out.push(
        `<text class="day-label" x="${px(x(t) + 4)}" y="${L.plotTop - 26}" font-size="12" font-weight="bold" fill="#1b1f24">${date}</text>`,
      );
    }
  }
  out.push(
    `<text class="axis-unit" x="${L.plotLeft - 24}" y="${L.plotTop - 10}" font-size="11" font-weight="bold" text-anchor="end" fill="#57606a">UTC</text>`,
  );
  out.push('</g>');
  return out.join('\n');
}

/** Legend entries (groups, no group, overlap), laid out left to right, wrapping. */
function legendItems(plan: Plan, colours: Map<string, string>): { rows: number; svg: (top: number) => string } {
  const entries: { fill: string; stroke?: string; dashed?: boolean; text: string }[] = [...colours].map(
    ([key, colour]) => {
      const [namespace, name, scope] = JSON.parse(key) as string[];
      return { fill: colour, text: `group ${name} (scope ${scope}, namespace ${namespace})` };
    },
  );
  if (plan.targets.some((t) => t.serializationGroup === undefined))
    entries.push({ fill: NO_GROUP_COLOUR, text: 'no serialization group' });
  entries.push({
    fill: 'url(#overlap-hatch)',
    stroke: OVERLAP_COLOUR,
    text: "overlapping run windows (see the plan's warnings)",
  });
  if (plan.dst.length > 0)
    entries.push({ fill: DST_COLOUR, dashed: true, text: 'daylight-saving change that skips or repeats a run' });
  const L = LAYOUT;
  // about 6.5 px per character at 12px, plus the swatch
  const widths = entries.map((e) => 28 + Math.ceil(e.text.length * 6.5) + 24);
  const placed: { entry: (typeof entries)[number]; left: number; row: number }[] = [];
  let left = 16;
  let row = 0;
  entries.forEach((entry, i) => {
    if (left + widths[i] > L.width - 16 && left > 16) {
      row += 1;
      left = 16;
    }
    placed.push({ entry, left, row });
    left += widths[i];
  });
  return {
    rows: row + 1,
    svg: (top) =>
      [
        '<g class="legend">',
        ...placed.map(({ entry, left: l, row: r }) => {
          const y = top + r * L.legendRowHeight;
          const swatch = entry.dashed
            ? `<line x1="${l + 9}" y1="${y}" x2="${l + 9}" y2="${y + 14}" stroke="${entry.fill}" stroke-width="2" stroke-dasharray="4 2"/>`
            : `<rect x="${l}" y="${y}" width="18" height="14" rx="2" fill="${entry.fill}"${entry.stroke ? ` stroke="${entry.stroke}" stroke-width="1.5"` : ''}/>`;
          return `<g class="legend-item">${swatch}<text x="${l + 26}" y="${y + 12}" font-size="12" fill="#1b1f24">${escapeXml(entry.text)}</text></g>`;
        }),
        '</g>',
      ].join('\n'),
  };
}
