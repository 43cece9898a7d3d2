/**
 * Pulumi mock harness shared by the Pulumi tests and the parity test. Each
 * test file installs its own mocks (Pulumi's runtime is global state, and jest
 * gives every test file a fresh module registry) BEFORE importing the
 * components.
 */
import * as pulumi from '@pulumi/pulumi';
import { sortKeys } from '../../../lib/internal';

/** One `newResource` call seen by the mock monitor. */
export interface Registered {
  readonly type: string;
  readonly name: string;
  readonly inputs: Record<string, unknown>;
  readonly provider?: string;
  readonly custom?: boolean;
}

/**
 * Installs mocks that record every registration into `registered` (a new,
 * live list by default) and returns it. Each call starts a new program: the
 * objects earlier components claimed are forgotten.
 */
export function installMocks(registered: Registered[] = []): Registered[] {
  registered.length = 0;
  void pulumi.runtime.setMocks(
    {
      newResource: (a) => {
        // Pulumi types a resource's inputs `any`: an object of its properties.
        const inputs = a.inputs as Record<string, unknown>;
        registered.push({ type: a.type, name: a.name, inputs, provider: a.provider, custom: a.custom });
        return { id: a.custom ? `${a.name}_id` : undefined, state: inputs };
      },
      call: (a) => a.inputs as Record<string, unknown>,
    },
    'project',
    'stack',
    false,
  );
  return registered;
}

/** An Output's value as a Promise (the `unwrap` of Pulumi's unit-testing example). */
export function unwrap<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise<T>((resolve) =>
    output.apply((v) => {
      resolve(v);
      return v;
    }),
  );
}

/** Waits until the component and every child are registered; returns the children's URNs in order. */
export async function settle(
  component: pulumi.ComponentResource & { readonly resources: readonly pulumi.Resource[] },
): Promise<string[]> {
  await unwrap(component.urn);
  return Promise.all(component.resources.map((r) => unwrap(r.urn)));
}

/** `urn:pulumi:stack::project::<parent types>$<type>::<name>` → its parts. */
export function parseUrn(urn: string): { readonly types: string[]; readonly name: string } {
  const [, , qualifiedType, ...name] = urn.split('::');
  return { types: qualifiedType.split('$'), name: name.join('::') };
}

/**
 * The token Pulumi registers for `apiVersion/kind`: a typed class uses its API
 * group (`core` for the legacy `v1` group), a CustomResource the apiVersion as
 * is, so only the core kinds tell them apart (`kubernetes:core/v1:Secret` vs
 * `kubernetes:v1:Secret`).
 */
export function expectedToken(apiVersion: string, kind: string): string {
  return apiVersion === 'v1' ? `kubernetes:core/v1:${kind}` : `kubernetes:${apiVersion}:${kind}`;
}

const SECRET_SIG_KEY = '4dabf18193072939515e22adb298388d';

/**
 * The plain JSON the provider would receive: secret wrappers (typed `Secret`
 * marks `data`/`stringData` secret) unwrapped, keys sorted. Nothing else is
 * removed, so any extra or missing field shows up in a comparison.
 */
export function plainInputs(value: unknown): unknown {
  const unwrapSecrets = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(unwrapSecrets);
    if (v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (SECRET_SIG_KEY in o) return unwrapSecrets(o.value);
      return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, unwrapSecrets(x)]));
    }
    return v;
  };
  return sortKeys(unwrapSecrets(value));
}

/** Stable, strict text form for comparisons (sorted keys, one value per line: readable diffs). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 1);
}

/** The outputs the mock monitor recorded for `urn` through `registerOutputs` (polls briefly: that RPC is async). */
export async function registeredOutputs(urn: string): Promise<Record<string, unknown>> {
  const monitor = pulumi.runtime.getMonitor() as unknown as {
    getRegisteredResources(): Map<string, { state: unknown }>;
  };
  for (let i = 0; i < 200; i++) {
    const state = monitor.getRegisteredResources().get(urn)?.state as
      { toJavaScript?: () => Record<string, unknown> } | undefined;
    if (state && typeof state.toJavaScript === 'function') return state.toJavaScript();
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`no outputs registered for ${urn}`);
}
