/** Rendering helpers of the unit tests. */
import { Manifest, renderPolicy } from '../../lib';

/** The CronJobs a policy renders, in order (without the script ConfigMap and the engine's other objects). */
export const renderCronJobs = (doc: unknown): Manifest[] => renderPolicy(doc).filter((o) => o.kind === 'CronJob');
