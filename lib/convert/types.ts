/** What a conversion produces: policies with the comments to print, and notes for the user. */
import type { BackupPolicy } from '../registry';
import type { FieldComment } from '../engines/convert';

export type { Draft, FieldComment, Note, Obj } from '../engines/convert';
export {
  Notes,
  asArr,
  asBool,
  asInt,
  asObj,
  asStr,
  asStringMap,
  at,
  objectName,
  splitCronTimeZone,
} from '../engines/convert';

/** One BackupPolicy converted from operator objects. */
export interface ConvertedPolicy {
  /** The objects it came from, e.g. `VitessCluster example/example`. */
  readonly source: string;
  readonly document: BackupPolicy;
  readonly comments: readonly FieldComment[];
}
