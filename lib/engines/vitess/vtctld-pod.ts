/** The pod of a step that only talks to vtctld (retention-prune, incremental-backup). */
import type { EngineContainer } from '../../kubernetes/objects';
import { STEP_RESOURCES } from '../../workload/resources';
import { restrictedContainerSecurity, restrictedPodSecurity } from '../../workload/security';
import type { EnginePod } from '../engine';
import { VITESS_DEFAULTS } from './defaults';
import type { ResolvedVitess } from './resolve';

/** One vtctldclient container in the vtbackup image, with a writable /tmp, restricted as every Vitess pod. */
export function vtctldPod(
  spec: ResolvedVitess,
  step: Required<Pick<EngineContainer, 'name' | 'command' | 'env'>>,
): EnginePod {
  return {
    containers: [
      {
        name: step.name,
        image: spec.images.vtbackup,
        command: step.command,
        env: step.env,
        securityContext: restrictedContainerSecurity(),
        volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
        resources: STEP_RESOURCES.vtctldclient,
      },
    ],
    mainContainers: [step.name],
    volumes: [{ name: 'tmp', emptyDir: {} }],
    securityContext: restrictedPodSecurity(VITESS_DEFAULTS.vitessUid),
  };
}
