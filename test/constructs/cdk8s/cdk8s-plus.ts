/**
 * cdk8s-plus-28 objects as the constructs receive them, for the unit tests
 * (cdk8s-plus is an optional peer dependency, not installed here; the
 * consumer projects in test/package use the real package). Each class copies
 * the imported-object class of cdk8s-team/cdk8s-plus branch k8s-28/main
 * (147b1020, published as cdk8s-plus-28 2.5.6): `ImportedSecret` in
 * src/secret.ts (`Secret.fromSecretName`), `ImportedPersistentVolumeClaim` in
 * src/pvc.ts (`PersistentVolumeClaim.fromClaimName`), with the GVK values of
 * `k8s.KubeSecret` / `k8s.KubePersistentVolumeClaim`, and
 * `EnvValue.fromSecretValue` of src/container.ts for `envValue`.
 */
import { ApiObject, ApiObjectMetadata, ApiObjectMetadataDefinition } from 'cdk8s';
import { Construct } from 'constructs';

/** `EnvValue` of cdk8s-plus (src/container.ts): a value, or where it comes from. */
class EnvValue {
  constructor(
    public readonly value?: string,
    public readonly valueFrom?: unknown,
  ) {}
}

/**
 * What cdk8s-plus-28's imported resources share (`ImportedSecret` in src/secret.ts,
 * `ImportedPersistentVolumeClaim` in src/pvc.ts, `ImportedConfigMap` in src/config-map.ts): a name, and
 * the core/v1 group, version and kind of their resource.
 */
abstract class ImportedResource extends Construct {
  private readonly _name: string;

  constructor(
    scope: Construct,
    id: string,
    name: string,
    public readonly resourceType: string,
    private readonly _kind: string,
  ) {
    super(scope, id);
    this._name = name;
  }

  public get name(): string {
    return this._name;
  }

  public get apiVersion(): string {
    return 'v1';
  }

  public get apiGroup(): string {
    return '';
  }

  public get kind(): string {
    return this._kind;
  }

  public get resourceName(): string {
    return this.name;
  }
}

/** cdk8s-plus-28 `Secret.fromSecretName(scope, id, name)`. */
export class ImportedSecret extends ImportedResource {
  constructor(scope: Construct, id: string, name: string) {
    super(scope, id, name, 'secrets', 'Secret');
  }

  public envValue(key: string, options: { readonly optional?: boolean } = {}): EnvValue {
    return new EnvValue(undefined, { secretKeyRef: { name: this.name, key, optional: options.optional } });
  }
}

/** cdk8s-plus-28 `PersistentVolumeClaim.fromClaimName(scope, id, claimName)`. */
export class ImportedPersistentVolumeClaim extends ImportedResource {
  constructor(scope: Construct, id: string, name: string) {
    super(scope, id, name, 'persistentvolumeclaims', 'PersistentVolumeClaim');
  }
}

/** cdk8s-plus-28 `ConfigMap.fromConfigMapName(scope, id, name)` (src/config-map.ts, `ImportedConfigMap`). */
export class ImportedConfigMap extends ImportedResource {
  constructor(scope: Construct, id: string, name: string) {
    super(scope, id, name, 'configmaps', 'ConfigMap');
  }
}

/**
 * cdk8s-plus-28 `new Secret(scope, id, { metadata })` (src/secret.ts, a `base.Resource`, src/base.ts):
 * its `name`, `kind`, `apiVersion` and `metadata` are those of the `KubeSecret` ApiObject it adds (id
 * `Resource`), so a Secret the app defines carries its namespace: its chart's, or `metadata.namespace`.
 */
export class DefinedSecret extends Construct {
  public readonly resourceType = 'secrets';
  private readonly apiObject: ApiObject;

  constructor(scope: Construct, id: string, props: { readonly metadata?: ApiObjectMetadata } = {}) {
    super(scope, id);
    this.apiObject = new ApiObject(this, 'Resource', { apiVersion: 'v1', kind: 'Secret', metadata: props.metadata });
  }

  public get metadata(): ApiObjectMetadataDefinition {
    return this.apiObject.metadata;
  }

  public get name(): string {
    return this.apiObject.name;
  }

  public get apiVersion(): string {
    return this.apiObject.apiVersion;
  }

  public get apiGroup(): string {
    return '';
  }

  public get kind(): string {
    return this.apiObject.kind;
  }

  public get resourceName(): string {
    return this.name;
  }

  public envValue(key: string, options: { readonly optional?: boolean } = {}): EnvValue {
    return new EnvValue(undefined, { secretKeyRef: { name: this.name, key, optional: options.optional } });
  }
}
