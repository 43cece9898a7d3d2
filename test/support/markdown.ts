// The project's Markdown, read the way test/docs.test.ts checks it: its files, their fenced code
// blocks (with the section they sit in and the file name a line before them gives), headings and links.
import { existsSync, readdirSync, statSync } from 'fs';
import { join, relative } from 'path';

export interface CodeBlock {
  /** The Markdown file, relative to the repository's root. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The fence's info string ('' for none). */
  readonly language: string;
  /** The block's lines, without the fence's indentation, each ending with '\n'. */
  readonly text: string;
  /** `NAME` when the last non-blank line before the block ends with `` `NAME`: ``. */
  readonly name?: string;
  /** The `## ` heading the block is under ('' before the first). */
  readonly section: string;
}

/** Every Markdown file the docs test reads: README.md, ARCHITECTURE.md, CONTRIBUTING.md and docs/**, sorted. */
export function markdownFiles(root: string): string[] {
  const files = ['README.md', 'ARCHITECTURE.md', 'CONTRIBUTING.md'].filter((f) => existsSync(join(root, f)));
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (entry.endsWith('.md')) files.push(relative(root, path));
    }
  };
  if (existsSync(join(root, 'docs'))) walk(join(root, 'docs'));
  return files;
}

const FENCE = /^(\s*)```(\S*)\s*$/;

/** The fenced code blocks of a Markdown text. An unclosed fence is an error. */
export function codeBlocks(markdown: string, file: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  let section = '';
  let open: { line: number; indent: string; language: string; name?: string; lines: string[] } | undefined;
  let lastText = '';
  lines.forEach((line, i) => {
    if (open) {
      if (line.trim() === '```') {
        blocks.push({
          file,
          line: open.line,
          language: open.language,
          text: open.lines.map((l) => `${l}\n`).join(''),
          name: open.name,
          section,
        });
        open = undefined;
        lastText = '';
      } else open.lines.push(line.startsWith(open.indent) ? line.slice(open.indent.length) : line.trimStart());
      return;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const name = /`([^`\s]+)`:\s*$/.exec(lastText)?.[1];
      open = { line: i + 1, indent: fence[1], language: fence[2], name, lines: [] };
      return;
    }
    if (line.startsWith('## ')) section = line;
    if (line.trim() !== '') lastText = line;
  });
  if (open) throw new Error(`${file}:${open.line}: a code block is never closed`);
  return blocks;
}

/** The text outside code blocks and inline code spans, so that links and headings are read only there. */
function prose(markdown: string): string[] {
  const out: string[] = [];
  let inBlock = false;
  for (const line of markdown.split('\n')) {
    if (FENCE.test(line)) {
      inBlock = !inBlock;
      out.push('');
    } else out.push(inBlock ? '' : line);
  }
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as '-'. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown text's headings (a repeated heading gets -1, -2, … as on GitHub). */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(markdown)) {
    const m = /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

export interface Link {
  readonly line: number;
  readonly target: string;
}

/** The relative links `[text](target)` of a Markdown text (not http(s), mailto or inside code). */
export function relativeLinks(markdown: string): Link[] {
  const links: Link[] = [];
  prose(markdown).forEach((line, i) => {
    const text = line.replace(/`[^`]*`/g, (code) => (code.includes('](') ? '' : code));
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^(https?:|mailto:)/.test(m[1])) links.push({ line: i + 1, target: m[1] });
    }
  });
  return links;
}

/** One step of a shell session shown in the docs: a `$ ` command (without a trailing `# comment`) and what it prints. */
export interface SessionStep {
  readonly command: string;
  readonly expected: string;
}

/** The steps of the one `sh` block under `section` of a docs file: each `$ ` line with the lines under it. */
export function sessionSteps(markdown: string, file: string, section: string): SessionStep[] {
  const blocks = codeBlocks(markdown, file).filter((b) => b.section === section && b.language === 'sh');
  if (blocks.length !== 1) throw new Error(`${file}: ${blocks.length} sh blocks under "${section}", expected 1`);
  const steps: { command: string; lines: string[] }[] = [];
  for (const line of blocks[0].text.replace(/\n$/, '').split('\n')) {
    if (line.startsWith('$ ')) steps.push({ command: line.slice(2).split(/\s+#/)[0].trim(), lines: [] });
    else if (steps.length === 0)
      throw new Error(`${file}: the session under "${section}" starts with output, not a $ command`);
    else steps.at(-1)!.lines.push(line);
  }
  return steps.map((s) => ({ command: s.command, expected: s.lines.join('\n') }));
}
