/**
 * Where test/lib/convert imports this from (it moved to lib/engines/etcd/convert.ts, with its engine):
 * kept only for those tests, an exception the architecture test lists. Nothing in lib/ imports it.
 * @deprecated import from the engine's folder (or reach the converter through the registry)
 */
export { BACKUP_FIELDS } from '../engines/etcd/convert';
