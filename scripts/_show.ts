import { readFileSync } from 'fs';
import { loadPolicies, renderPolicy, toYaml } from '../lib';
const [f, i] = [process.argv[2], Number(process.argv[3] ?? 0)];
const p = loadPolicies(readFileSync('examples/policies/'+f,'utf8'), f)[0];
const objs = renderPolicy({ ...p, spec: { ...p.spec, scripts: { mode: 'configMap' } } } as any).filter(o=>o.kind==='CronJob');
process.stdout.write(toYaml([objs[i]]));
