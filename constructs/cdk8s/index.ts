export * from './backup-policy';
export * from './engine-schedules';
export type { PolicyLike, PolicySource } from '../core';
export type { ClaimObject, ConfigMapObject, SecretObject } from './values';
export type * from './props.generated';
