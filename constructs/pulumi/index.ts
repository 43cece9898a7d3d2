export * from './policy-component';
export * from './backup-policy';
export * from './vitess-backup-schedule';
export * from './redis-backup-schedule';
export * from './etcd-backup-schedule';
export type { WithInputs } from './inputs';
