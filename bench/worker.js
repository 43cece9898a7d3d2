'use strict';
// One measurement in a fresh process: node worker.js <kind> <shards> <outdir>; prints JSON {ms, maxRssKb, ...}.
const { writeFileSync } = require('fs');
const { join } = require('path');
const { isDeepStrictEqual } = require('util');
const { benchPolicy } = require('./policy');
const { floorObjects: coreFloorObjects } = require('./floor');

const dist = join(__dirname, '..', 'dist');
// the internal entry: the public API and the parts the floor builds the core's objects from
const core = require(join(dist, 'lib', 'internal'));
const { runCli } = require(join(dist, 'lib', 'cli'));
const [kind, shardsText, outdir] = process.argv.slice(2);
const shards = Number(shardsText);
const policy = benchPolicy(shards);
const policyFile = join(outdir, 'bench.json');
writeFileSync(policyFile, JSON.stringify(policy));

function emitters() {
  const jsyaml = require('js-yaml');
  const YAML = require('yaml');
  return {
    'js-yaml': (objs) => objs.map((o) => jsyaml.dump(o, { noRefs: true, lineWidth: -1, sortKeys: true })).join('---\n'),
    yaml: (objs) =>
      objs.map((o) => YAML.stringify(o, { lineWidth: 0, version: '1.1', sortMapEntries: true })).join('---\n'),
  };
}

function cdk8sSynth(addObjects) {
  const { App, Chart } = require('cdk8s');
  const app = new App({ outdir });
  addObjects(new Chart(app, 'bench'));
  app.synth();
}

const floorObjects = (n) => coreFloorObjects(core, n);

// Verification (untimed, small sizes only): the floors build exactly the core's objects (test/bench/floor.test.ts checks it too).
if (shards <= 1000) {
  const a = floorObjects(shards);
  const b = core.renderPolicy(policy);
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b))))
    throw new Error('floor objects differ from the core output');
}

const result = { kind, shards };
const cpuMs = (since) => {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
};
const cpuStart = process.cpuUsage();
const start = process.hrtime.bigint();
switch (kind) {
  case 'cli':
    if (runCli(['synth', policyFile, '--out', outdir], { stdout: () => undefined, stderr: () => undefined }) !== 0)
      throw new Error('cli failed');
    break;
  case 'cli-floor': {
    // fastest emitter: time both on the same objects, keep the faster (the floor is the better of them)
    const objs = floorObjects(shards);
    const built = Number(process.hrtime.bigint() - start) / 1e6;
    const builtCpu = cpuMs(cpuStart);
    let best;
    for (const [name, emit] of Object.entries(emitters())) {
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      writeFileSync(join(outdir, `floor-${name}.yaml`), emit(objs));
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (!best || ms < best.ms) best = { name, ms, cpuMs: cpuMs(c0) };
    }
    result.emitter = best.name;
    result.ms = built + best.ms;
    result.cpuMs = builtCpu + best.cpuMs;
    break;
  }
  case 'cdk8s': {
    const { BackupPolicy } = require(join(dist, 'constructs', 'cdk8s'));
    cdk8sSynth((chart) => new BackupPolicy(chart, 'policy', policy));
    break;
  }
  case 'cdk8s-floor': {
    const { ApiObject } = require('cdk8s');
    cdk8sSynth((chart) => {
      for (const o of floorObjects(shards)) new ApiObject(chart, o.metadata.name, o);
    });
    break;
  }
  default:
    throw new Error(`unknown kind ${kind}`);
}
if (result.ms === undefined) {
  result.ms = Number(process.hrtime.bigint() - start) / 1e6;
  result.cpuMs = cpuMs(cpuStart);
}
result.maxRssKb = process.resourceUsage().maxRSS;
console.log(JSON.stringify(result));
