export * from './policy-component';
export * from './backup-policy';
export * from './engine-schedules';
export type { PolicyLike, PolicySource } from '../core';
export type * from './args.generated';
