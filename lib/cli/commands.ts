/**
 * The CLI's commands by name, each module loaded when called: `./main` loads only the one it runs, `./index`
 * (the usage, which lists them all) loads every one.
 */
import type { Command } from './command';

/* eslint-disable @typescript-eslint/no-require-imports -- each command's module is loaded when it is called */
/** Every command by name, in the order the usage lists them. */
export const COMMAND_MODULES: Readonly<Record<string, () => Command>> = {
  synth: () => (require('./synth') as typeof import('./synth')).synthCommand,
  validate: () => (require('./validate') as typeof import('./validate')).validateCommand,
  plan: () => (require('./plan') as typeof import('./plan')).planCommand,
  list: () => (require('./list') as typeof import('./list')).listCommand,
  restore: () => (require('./restore') as typeof import('./restore')).restoreCommand,
  convert: () => (require('./convert') as typeof import('./convert')).convertCommand,
  discover: () => (require('./discover') as typeof import('./discover')).discoverCommand,
  schema: () => (require('./schema') as typeof import('./schema')).schemaCommand,
  dashboard: () => (require('./dashboard') as typeof import('./dashboard')).dashboardCommand,
  retention: () => (require('./retention') as typeof import('./retention')).retentionCommand,
};
/* eslint-enable @typescript-eslint/no-require-imports */
