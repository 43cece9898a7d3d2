/**
 * Where test/lib/convert imports this from (it moved to lib/engines/vitess/convert/names.ts, with its engine):
 * kept only for those tests, an exception the architecture test lists. Nothing in lib/ imports it.
 * @deprecated import from the engine's folder (or reach the converter through the registry)
 */
export {
  SERVICE_NAME_MAX,
  backupScheduleName,
  compareKeyRanges,
  equalKeyRanges,
  globalEtcdName,
  joinWithConstraints,
} from '../engines/vitess/convert/names';
