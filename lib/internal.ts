/**
 * The entry the package's own front ends (`constructs/`) import: the public API
 * and the core's parts only they need. Not a package export; users import
 * `lib/index.ts` (`backup-cronjobs`).
 */
export * from './index';
export { IssueList, formatPath, show } from './policy/errors';
export type { PolicyPath } from './policy/errors';
export * as units from './units';
export { sortKeys } from './yaml';
export { copyManifests, isPlainObject } from './kubernetes/objects';
// What the objects are built as (siblings share parts): the front ends keep them and hand out copies.
export { renderResolved, renderShared } from './model/render';
export type { ResolvedTarget, ResolvedSchedule } from './model/resolve';
export type { ResolvedJobSettings } from './policy/settings';
export type { ResolvedPlacement, ResolvedPodOptions, ResolvedSerializationGroup } from './policy/resolve-settings';
export type { PropsLayout } from './engines/props';
export { literal } from './kubernetes/expansion';
export { findCollisions, formatCollision, objectKey } from './model/collisions';
export { objectByKey, objectKeys } from './model/object-keys';
export type { ObjectKeys } from './model/object-keys';
export { passThroughFormat, propFieldName, withPropPaths } from './engines/props';
export type { PassThroughFormat } from './engines/props';
export { engineProps, policySchema } from './registry';
export { fieldMeta } from './policy/schema-builders';
export type { NamedKind, Schema } from './policy/schema-builders';
// The synthesis benchmark's floor (bench/floor.js) builds the core's objects from these.
export { joinName, safeShard } from './kubernetes/names';
export { resolveHashedSchedule } from './schedule/hash';
