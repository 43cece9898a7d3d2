export * from './backup-policy';
export * from './schedule-construct';
export * from './engine-schedules';
export type { PolicyLike, PolicySource } from '../core';
export type { Cdk8sValues, ClaimObject, ConfigMapObject, SecretObject } from './values';
