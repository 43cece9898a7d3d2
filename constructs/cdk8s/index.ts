export * from './backup-policy';
export * from './vitess-backup-schedule';
