import { referencedPolicyFiles, sectionCodeBlocks } from './readme-blocks';

const markdown = [
  '# title',
  '```ts',
  'before();',
  '```',
  '## cdk8s',
  'text',
  '```ts',
  "import { A } from 'a';",
  '',
  'a();',
  '```',
  '```sh',
  'npx cdk8s synth',
  '```',
  '### Sub',
  '```ts',
  'sub();',
  '```',
  '## Pulumi',
  '```ts',
  'pulumi();',
  '```',
].join('\n');

test('takes the blocks of the language from the section and its subsections only', () => {
  expect(sectionCodeBlocks(markdown, '## cdk8s', 'ts')).toEqual(["import { A } from 'a';\n\na();\n", 'sub();\n']);
  expect(sectionCodeBlocks(markdown, '## cdk8s', 'sh')).toEqual(['npx cdk8s synth\n']);
  expect(sectionCodeBlocks(markdown, '## Pulumi', 'ts')).toEqual(['pulumi();\n']);
});

test('a "## " line inside a code block does not end the section', () => {
  const md = '## cdk8s\n```ts\n## not a heading\nx();\n```\n## Next\n```ts\ny();\n```\n';
  expect(sectionCodeBlocks(md, '## cdk8s', 'ts')).toEqual(['## not a heading\nx();\n']);
});

test('a missing section is an error naming it', () => {
  expect(() => sectionCodeBlocks(markdown, '## Helm', 'ts')).toThrow('README has no section "## Helm"');
});

test('finds the policy files a block reads, once each', () => {
  const code =
    "fromFile(chart, 'a', 'policies/a.yaml');\nfromFile(\"b\", \"policies/sub/b.yml\");\nread(`policies/a.yaml`);\nread('other/c.yaml');";
  expect(referencedPolicyFiles(code)).toEqual(['policies/a.yaml', 'policies/sub/b.yml']);
});
