/**
 * The README's code blocks, so that the consumer test can drop them into real
 * consumer projects (test/package/consumers.test.ts).
 */

/**
 * The fenced code blocks of one language in the README section that starts
 * with the level-2 heading `heading` (e.g. `## cdk8s`), up to the next level-2
 * heading; blocks in its `###` subsections count.
 */
export function sectionCodeBlocks(markdown: string, heading: string, language: string): string[] {
  const lines = markdown.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const blocks: string[] = [];
  let open: { readonly language: string; readonly lines: string[] } | undefined;
  for (const line of lines.slice(start + 1)) {
    if (open === undefined && line.startsWith('## ')) break;
    const fence = /^```(\S*)\s*$/.exec(line);
    if (open === undefined && fence) open = { language: fence[1], lines: [] };
    else if (open !== undefined && line.startsWith('```')) {
      if (open.language === language) blocks.push(`${open.lines.join('\n')}\n`);
      open = undefined;
    } else open?.lines.push(line);
  }
  return blocks;
}

/** The policy files a code block reads, as written in it: string literals `policies/<file>.yaml` (or `.yml`, `.json`). */
export function referencedPolicyFiles(code: string): string[] {
  const paths = [...code.matchAll(/['"`](policies\/[^'"`]+\.(?:ya?ml|json))['"`]/g)].map((m) => m[1]);
  return [...new Set(paths)];
}
