// The API reports of the package's three entry points (api/*.api.md), made by api-extractor from a fresh
// declaration emit (tsc into .tmp/). `node scripts/api-report.js` (npm run api) rewrites the reports;
// `--check` changes nothing and exits 1 when a report would change, or on any api-extractor warning.
'use strict';
const { execFileSync } = require('child_process');
const { mkdirSync, rmSync } = require('fs');
const { join } = require('path');
const { Extractor, ExtractorConfig } = require('@microsoft/api-extractor');
const { TSDocConfigFile } = require('@microsoft/tsdoc-config');

const root = join(__dirname, '..');
/** The package's `exports` with TypeScript code, and the report of each. */
const ENTRIES = [
  { entry: 'lib/index.d.ts', report: 'backup-cronjobs.api.md' },
  { entry: 'constructs/cdk8s/index.d.ts', report: 'cdk8s.api.md' },
  { entry: 'constructs/pulumi/index.d.ts', report: 'pulumi.api.md' },
];

const check = process.argv.includes('--check');
// A fixed folder: the report names the declaration files of its warnings by path.
const dts = join(root, '.tmp', 'api-dts');
rmSync(dts, { recursive: true, force: true });
mkdirSync(dts, { recursive: true });
try {
  execFileSync(
    process.execPath,
    [
      require.resolve('typescript/bin/tsc'),
      '-p',
      join(root, 'tsconfig.json'),
      '--emitDeclarationOnly',
      '--outDir',
      dts,
    ],
    { cwd: root, stdio: 'inherit' },
  );
  const problems = [];
  for (const { entry, report } of ENTRIES) {
    const config = ExtractorConfig.prepare({
      configObjectFullPath: join(root, 'api', 'api-extractor.json'),
      packageJsonFullPath: join(root, 'package.json'),
      tsdocConfigFile: TSDocConfigFile.loadFile(join(root, 'api', 'tsdoc.json')),
      configObject: {
        projectFolder: root,
        mainEntryPointFilePath: join(dts, entry),
        compiler: {
          overrideTsconfig: {
            compilerOptions: {
              strict: true,
              skipLibCheck: true,
              types: ['node'],
              lib: ['ES2022'],
              target: 'ES2022',
              module: 'commonjs',
              moduleResolution: 'node',
              esModuleInterop: true,
            },
          },
        },
        apiReport: {
          enabled: true,
          reportFileName: report,
          reportFolder: join(root, 'api'),
          reportTempFolder: join(dts, 'report'),
        },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          compilerMessageReporting: { default: { logLevel: 'warning' } },
          extractorMessageReporting: {
            default: { logLevel: 'warning' },
            // Listed in the report itself, next to the declaration, for the reviewer of its diff: a declaration
            // without a doc comment (mostly fields whose JSON Schema description is the documentation), and a
            // type the entry uses but does not export (the registry's ENGINES behind BackupPolicySpec, the
            // engine interface behind ResolvedTarget, the `_base` classes of the schedule factories, the
            // per-key helper types `Field` of Cdk8sValues and WithInputs, and in the cdk8s and Pulumi reports the types
            // of the root entry they use: api-extractor reports each entry point as a package of its own).
            'ae-undocumented': { logLevel: 'warning', addToApiReportFile: true },
            'ae-forgotten-export': { logLevel: 'warning', addToApiReportFile: true },
            // The package has one audience and no beta/internal channels: every exported name is public, so no
            // declaration carries @public/@beta/@alpha/@internal, and the report shows none.
            'ae-missing-release-tag': { logLevel: 'none' },
          },
          tsdocMessageReporting: { default: { logLevel: 'warning' } },
        },
      },
    });
    const messages = [];
    const result = Extractor.invoke(config, {
      localBuild: !check,
      messageCallback: (message) => {
        if (
          (message.logLevel === 'warning' || message.logLevel === 'error') &&
          !message.messageId.startsWith('console-')
        )
          messages.push(`${report}: ${message.formatMessageWithLocation(root)}`);
        message.handled = true;
      },
    });
    problems.push(...messages);
    if (check && result.apiReportChanged)
      problems.push(
        `api/${report} would change: run \`npm run api\` and review the diff of api/${report} (every line is a promise to users)`,
      );
    if (!check && result.apiReportChanged) console.log(`api/${report} updated: review its diff`);
  }
  if (problems.length > 0) {
    console.error(problems.join('\n'));
    process.exitCode = 1;
  }
} finally {
  if (!process.env.API_REPORT_KEEP) rmSync(dts, { recursive: true, force: true });
}
