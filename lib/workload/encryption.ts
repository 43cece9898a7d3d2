/**
 * What a container that encrypts or decrypts with age (`spec.encryption.age`,
 * `lib/scripts/age.sh`) needs in its pod: the env age.sh reads, and the
 * Secret/ConfigMap volumes holding the recipients or the identity. Engines
 * add these to the containers that run age; the core builds them one way.
 */
import type { EngineContainer, EngineEnvVar, EnvVar, Volume, VolumeMount } from '../kubernetes/objects';
import type { AgeEncryption } from '../policy/types';
import { ENCRYPTED_SUFFIX } from '../retention/listing';
import { shellCommand } from '../scripts';
import { STEP_RESOURCES } from './resources';
import { restrictedContainerSecurity } from './security';

export { ENCRYPTED_SUFFIX };

/** Where the recipients and identity files are mounted. */
export const AGE_RECIPIENTS_DIR = '/etc/backup-cronjobs/age-recipients';
export const AGE_IDENTITY_DIR = '/etc/backup-cronjobs/age-identity';
const RECIPIENTS_FILE = 'recipients.txt';
const IDENTITY_FILE = 'identity.txt';

/** Env, volumes and mounts of one container (volumes go to the pod once). */
export interface AgePodParts {
  readonly env: readonly EnvVar[];
  readonly volumes: readonly Volume[];
  readonly mounts: readonly VolumeMount[];
}

/** For a container that encrypts: the recipients, inline in the env or from their Secret/ConfigMap. */
export function ageRecipientsParts(age: AgeEncryption): AgePodParts {
  if (age.recipients)
    return { env: [{ name: 'BACKUP_AGE_RECIPIENTS', value: age.recipients.join('\n') }], volumes: [], mounts: [] };
  const secret = age.recipientsSecret;
  const configMap = age.recipientsConfigMap;
  const ref = secret ?? configMap;
  if (!ref) throw new Error('spec.encryption.age: no recipients (validation lets no such policy through)');
  const items = [{ key: ref.key, path: RECIPIENTS_FILE }];
  return {
    env: [{ name: 'BACKUP_AGE_RECIPIENTS_FILE', value: `${AGE_RECIPIENTS_DIR}/${RECIPIENTS_FILE}` }],
    volumes: [
      secret
        ? { name: 'age-recipients', secret: { secretName: secret.name, items } }
        : { name: 'age-recipients', configMap: { name: ref.name, items } },
    ],
    mounts: [{ name: 'age-recipients', mountPath: AGE_RECIPIENTS_DIR, readOnly: true }],
  };
}

/** For a container that decrypts (restore drills): the identity from its Secret, readable by the owner only. */
export function ageIdentityParts(age: AgeEncryption): AgePodParts {
  const ref = age.identitySecret;
  if (!ref) throw new Error('spec.encryption.age.identitySecret: missing (validation requires it with spec.drill)');
  return {
    env: [{ name: 'BACKUP_AGE_IDENTITY_FILE', value: `${AGE_IDENTITY_DIR}/${IDENTITY_FILE}` }],
    volumes: [
      {
        name: 'age-identity',
        secret: { secretName: ref.name, items: [{ key: ref.key, path: IDENTITY_FILE }], defaultMode: 0o400 },
      },
    ],
    mounts: [{ name: 'age-identity', mountPath: AGE_IDENTITY_DIR, readOnly: true }],
  };
}

/**
 * A container that runs `script` in the age image (`spec.encryption.age.image`): its own env and
 * mounts, then those of the key material (`ageRecipientsParts` or `ageIdentityParts`).
 */
export function ageContainer(
  name: string,
  age: AgeEncryption,
  script: string,
  keys: AgePodParts,
  own: { readonly env: readonly EngineEnvVar[]; readonly mounts: readonly VolumeMount[] },
): EngineContainer {
  return {
    name,
    image: age.image,
    command: shellCommand(script),
    env: [...own.env, ...keys.env],
    volumeMounts: [...own.mounts, ...keys.mounts],
    resources: STEP_RESOURCES.age,
    securityContext: restrictedContainerSecurity(),
  };
}
