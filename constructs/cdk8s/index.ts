export * from './backup-policy';
export * from './schedule-construct';
export * from './engine-schedules';
export type { PolicyLike, PolicySource } from '../core';
export type { ClaimObject, ConfigMapObject, SecretObject } from './values';
export type * from './props.generated';
