export * from './policy-component';
export * from './backup-policy';
export * from './schedule-component';
export * from './engine-schedules';
export type { PolicyLike, PolicySource } from '../core';
export type * from './args.generated';
