import { readFileSync } from 'fs';
import { loadPolicies, renderPolicy } from '../lib';
import { SCRIPT_HEADER } from '../lib/scripts';
const [f, i] = [process.argv[2], Number(process.argv[3] ?? 0)];
const p = loadPolicies(readFileSync('examples/policies/'+f,'utf8'), f)[0];
const cj = renderPolicy(p).filter(o=>o.kind==='CronJob')[i];
const walk = (v: any) => { if (typeof v==='string') { if (v.startsWith(SCRIPT_HEADER)) console.log(v + '\n=========');} else if (v && typeof v==='object') Object.values(v).forEach(walk); };
walk(cj);
