// Names, label keys and values, annotations (api-rules/meta.ts).
import { validateManifest } from '..';
import {
  AcceptedCase,
  RuleCase,
  expectApiRule,
  mutate,
  validCronJob,
  validJob,
  validPrometheusRule,
} from '../fixtures';

const TEMPLATE_META = 'spec.jobTemplate.spec.template.metadata';

test.each<RuleCase>([
  [
    'CronJob name longer than 52',
    () => mutate(validCronJob(), 'metadata.name', 'a'.repeat(53)),
    'metadata.name',
    'no more than 52 characters',
  ],
  [
    'CronJob name with upper case',
    () => mutate(validCronJob(), 'metadata.name', 'Redis-Backup'),
    'metadata.name',
    'bad name "Redis-Backup"',
    'DNS-1123 subdomain',
  ],
  ['CronJob name with "_"', () => mutate(validCronJob(), 'metadata.name', 'redis_backup'), 'metadata.name', 'bad name'],
  [
    'namespace not a DNS-1123 label',
    () => mutate(validCronJob(), 'metadata.namespace', 'Backups'),
    'metadata.namespace',
    'bad name',
  ],
  [
    'Job name longer than 63',
    () => mutate(validJob(), 'metadata.name', 'j'.repeat(64)),
    'metadata.name',
    'no more than 63 characters',
  ],
  ['missing name', () => mutate(validCronJob(), 'metadata.name', undefined), 'metadata.name', 'missing required field'],
  [
    'label value with a space',
    () => mutate(validCronJob(), 'metadata.labels.tier', 'bad value!'),
    'metadata.labels.tier',
    'bad label value "bad value!"',
  ],
  [
    'label value longer than 63',
    () => mutate(validCronJob(), 'metadata.labels.tier', 'x'.repeat(64)),
    'metadata.labels.tier',
    'no more than 63',
  ],
  [
    'label value starting with "-"',
    () => mutate(validCronJob(), 'metadata.labels.tier', '-x'),
    'metadata.labels.tier',
    'bad label value',
  ],
  [
    'label key prefix not a DNS subdomain',
    () => mutate(validCronJob(), 'metadata.labels', { 'Example.COM/x': 'y' }),
    'metadata.labels["Example.COM/x"]',
    'bad label key',
    'prefix part',
  ],
  [
    'label key with an empty prefix',
    () => mutate(validCronJob(), 'metadata.labels', { '/x': 'y' }),
    'metadata.labels["/x"]',
    'prefix part must be non-empty',
  ],
  [
    'label key name part longer than 63',
    () => mutate(validCronJob(), 'metadata.labels', { ['k'.repeat(64)]: 'y' }),
    `metadata.labels.${'k'.repeat(64)}`,
    'no more than 63',
  ],
  [
    'label key with two "/"',
    () => mutate(validCronJob(), 'metadata.labels', { 'a/b/c': 'y' }),
    'metadata.labels["a/b/c"]',
    'bad label key',
  ],
  [
    'job template label value',
    () => mutate(validCronJob(), 'spec.jobTemplate.metadata.labels.x', 'a b'),
    'spec.jobTemplate.metadata.labels.x',
    'bad label value',
  ],
  [
    'job template label key',
    () => mutate(validCronJob(), 'spec.jobTemplate.metadata.labels', { 'x y': 'a' }),
    'spec.jobTemplate.metadata.labels["x y"]',
    'bad label key',
  ],
  [
    'pod template label value',
    () => mutate(validCronJob(), `${TEMPLATE_META}.labels.x`, 'a b'),
    `${TEMPLATE_META}.labels.x`,
    'bad label value',
  ],
  [
    'pod template label key',
    () => mutate(validCronJob(), `${TEMPLATE_META}.labels`, { '-x': 'a' }),
    `${TEMPLATE_META}.labels["-x"]`,
    'bad label key',
  ],
  [
    'PrometheusRule label value',
    () => mutate(validPrometheusRule(), 'metadata.labels.release', 'kube prometheus'),
    'metadata.labels.release',
    'bad label value',
  ],
  [
    'PrometheusRule label key',
    () => mutate(validPrometheusRule(), 'metadata.labels', { 'release!': 'x' }),
    'metadata.labels["release!"]',
    'bad label key',
  ],
  [
    'annotation key',
    () => mutate(validCronJob(), 'metadata.annotations', { 'bad key!': 'x' }),
    'metadata.annotations["bad key!"]',
    'bad annotation key',
  ],
  [
    'pod template annotation key',
    () => mutate(validCronJob(), `${TEMPLATE_META}.annotations`, { 'a/b/c': 'x' }),
    `${TEMPLATE_META}.annotations["a/b/c"]`,
    'bad annotation key',
  ],
  // 1 + 2 * 131072 = 262145 bytes: over the limit in bytes although only 131073 UTF-16 code units long
  [
    'annotations over 256 KiB (bytes)',
    () => mutate(validCronJob(), 'metadata.annotations', { k: 'é'.repeat(128 * 1024) }),
    'metadata.annotations',
    'annotations too long',
    '262145 bytes',
    'at most 262144',
  ],
  [
    'pod template annotations over 256 KiB',
    () =>
      mutate(validCronJob(), `${TEMPLATE_META}.annotations`, { a: 'x'.repeat(200 * 1024), b: 'y'.repeat(60 * 1024) }),
    `${TEMPLATE_META}.annotations`,
    'annotations too long',
  ],
])('%s', (_rule, bad, path, ...fragments) => {
  expectApiRule(bad(), path, ...fragments);
});

test.each<AcceptedCase>([
  ['a 52-character CronJob name', () => mutate(validCronJob(), 'metadata.name', 'a'.repeat(52))],
  ['an empty label value', () => mutate(validCronJob(), 'metadata.labels.tier', '')],
  [
    'a prefixed label key with "_" and "." in its name',
    () => mutate(validCronJob(), 'metadata.labels', { 'example.com/a_b.c': 'v' }),
  ],
  [
    'an annotation key in upper case (compared lower-cased)',
    () => mutate(validCronJob(), 'metadata.annotations', { 'Example.COM/Note': 'x' }),
  ],
  [
    'annotations of exactly 256 KiB',
    () => mutate(validCronJob(), 'metadata.annotations', { k: 'x'.repeat(256 * 1024 - 1) }),
  ],
])('accepts %s', (_what, good) => {
  expect(validateManifest(good())).toEqual([]);
});

test('the top-level annotations and the pod template annotations are limited separately', () => {
  const obj = mutate(validCronJob(), 'metadata.annotations', { a: 'x'.repeat(200 * 1024) });
  mutate(obj, `${TEMPLATE_META}.annotations`, { b: 'y'.repeat(200 * 1024) });
  expect(validateManifest(obj)).toEqual([]);
});
