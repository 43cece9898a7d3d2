import {
  containerNameClashes,
  podSpecProblems,
  podTemplateProblems,
  volumeMountsProblems,
} from '../../../support/kubernetes-validation';

const paths = (problems: readonly { path: string }[]) => problems.map((p) => p.path);

const container = (name: string, extra: Record<string, unknown> = {}) => ({ name, image: 'busybox:1.36', ...extra });

describe('volumes', () => {
  test('names: required, DNS-1123 labels, unique', () => {
    const spec = {
      containers: [container('main')],
      volumes: [
        { name: 'data', emptyDir: {} },
        { name: 'data', emptyDir: {} },
        { name: 'Scratch_1', emptyDir: {} },
        { emptyDir: {} },
      ],
    };
    const problems = podSpecProblems(spec);
    expect(paths(problems)).toEqual(['volumes[1].name', 'volumes[2].name', 'volumes[3].name']);
    expect(problems[0].message).toBe('received "data"; volume names must be unique within the pod');
    expect(problems[1].message).toContain('RFC 1123 label');
    expect(problems[2].message).toBe('a volume needs a name');
  });

  test('at most one volume type; none is an emptyDir (v1 defaulting), as the API server has it', () => {
    expect(podSpecProblems({ containers: [container('main')], volumes: [{ name: 'v' }] })).toEqual([]);
    expect(
      podSpecProblems({
        containers: [container('main')],
        volumes: [{ name: 'v', emptyDir: {}, hostPath: { path: '/x' } }],
      })[0].message,
    ).toBe('received volume types emptyDir, hostPath; may not specify more than 1 volume type');
  });

  test('each source type is checked where it sits', () => {
    const spec = {
      containers: [container('main')],
      volumes: [
        { name: 'a', hostPath: { path: '/var/lib/../etc', type: 'Dir' } },
        {
          name: 'b',
          secret: { secretName: '', defaultMode: 0o1000, items: [{ key: 'tls/ca', path: '/ca.crt', mode: -1 }] },
        },
        { name: 'c', configMap: { name: 'cfg', items: [{ key: 'k', path: '..k' }] } },
        { name: 'd', emptyDir: { sizeLimit: '-1Gi' } },
        { name: 'e', persistentVolumeClaim: { claimName: '' } },
        {
          name: 'f',
          ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: {} } } } },
        },
      ],
    };
    expect(paths(podSpecProblems(spec))).toEqual([
      'volumes[0].hostPath.path',
      'volumes[0].hostPath.type',
      'volumes[1].secret.secretName',
      'volumes[1].secret.defaultMode',
      'volumes[1].secret.items[0].key',
      'volumes[1].secret.items[0].path',
      'volumes[1].secret.items[0].mode',
      'volumes[2].configMap.items[0].path',
      'volumes[3].emptyDir.sizeLimit',
      'volumes[4].persistentVolumeClaim.claimName',
      'volumes[5].ephemeral.volumeClaimTemplate.spec.resources[storage]',
    ]);
  });
});

describe('volume mounts', () => {
  test('every mount names an existing volume; mount paths are unique per container', () => {
    const mounts = [
      { name: 'data', mountPath: '/data' },
      { name: 'missing', mountPath: '/m' },
      { name: 'data', mountPath: '/data', subPath: 'x' },
      { name: '', mountPath: '' },
    ];
    const problems = volumeMountsProblems(mounts, new Set(['data']));
    expect(paths(problems)).toEqual([
      'volumeMounts[1].name',
      'volumeMounts[2].mountPath',
      'volumeMounts[3].name',
      'volumeMounts[3].mountPath',
    ]);
    expect(problems[0].message).toBe(
      'received "missing"; not found: no valid volume of the pod has this name (volumes: "data")',
    );
    expect(problems[1].message).toBe('received "/data"; must be unique within the container');
  });

  test('the same mountPath in two containers is fine', () => {
    const spec = {
      containers: [
        container('a', { volumeMounts: [{ name: 'v', mountPath: '/d' }] }),
        container('b', { volumeMounts: [{ name: 'v', mountPath: '/d' }] }),
      ],
      volumes: [{ name: 'v', emptyDir: {} }],
    };
    expect(podSpecProblems(spec)).toEqual([]);
  });

  test('a mount of a volume the API server refuses is not found either (ValidateVolumeMounts looks among the valid volumes)', () => {
    const spec = {
      containers: [container('main', { volumeMounts: [{ name: 'host', mountPath: '/host' }] })],
      volumes: [{ name: 'host', hostPath: { path: '/a/../b' } }],
    };
    expect(paths(podSpecProblems(spec))).toEqual(['volumes[0].hostPath.path', 'containers[0].volumeMounts[0].name']);
  });

  test('subPath and subPathExpr', () => {
    const mounts = [
      { name: 'v', mountPath: '/a', subPath: '../x' },
      { name: 'v', mountPath: '/b', subPath: 'x', subPathExpr: '$(POD)' },
      { name: 'v', mountPath: '/c', subPathExpr: '/$(POD)' },
    ];
    expect(paths(volumeMountsProblems(mounts, new Set(['v'])))).toEqual([
      'volumeMounts[0].subPath',
      'volumeMounts[1].subPathExpr',
      'volumeMounts[2].subPathExpr',
    ]);
  });
});

describe('containers', () => {
  test('names unique across init and regular containers; the clash is reported on the init container', () => {
    expect(
      containerNameClashes([{ name: 'backup' }, { name: 'upload' }], [{ name: 'prepare' }, { name: 'backup' }]),
    ).toEqual([
      {
        path: 'initContainers[1].name',
        message: 'received "backup"; container names must be unique across containers and initContainers',
      },
    ]);
    expect(paths(containerNameClashes([{ name: 'a' }, { name: 'a' }], []))).toEqual(['containers[1].name']);
  });

  test('at least one container, each with a DNS-1123 label name and an image', () => {
    expect(paths(podSpecProblems({ containers: [] }))).toEqual(['containers']);
    expect(paths(podSpecProblems({ containers: [{ name: 'Main' }], initContainers: [{ image: 'x' }] }))).toEqual([
      'containers[0].name',
      'containers[0].image',
      'initContainers[0].name',
    ]);
  });

  test('an image with leading or trailing whitespace is refused (validateContainerCommon: TrimSpace)', () => {
    expect(
      podSpecProblems({
        containers: [container('main', { image: ' redis' }), container('side', { image: 'redis\n' })],
      }),
    ).toEqual([
      { path: 'containers[0].image', message: 'received " redis"; must not have leading or trailing whitespace' },
      { path: 'containers[1].image', message: 'received "redis\\n"; must not have leading or trailing whitespace' },
    ]);
  });

  test('env and resources are checked in every container', () => {
    const spec = {
      containers: [
        container('main', {
          env: [{ name: 'OK' }, { name: '1BAD' }],
          resources: { requests: { memory: '2Gi' }, limits: { memory: '1Gi' } },
        }),
      ],
      initContainers: [container('init', { env: [{ name: 'A', valueFrom: {} }] })],
    };
    expect(paths(podSpecProblems(spec))).toEqual([
      'containers[0].env[1].name',
      'containers[0].resources.requests[memory]',
      'initContainers[0].env[0].valueFrom',
    ]);
  });
});

describe('the rest of the pod spec', () => {
  test('scheduling fields and names', () => {
    const spec = {
      containers: [container('main')],
      nodeSelector: { 'kubernetes.io/hostname': 'cp 1' },
      tolerations: [{ key: 'x', operator: 'Exists', value: 'y' }],
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: '' }] } },
      serviceAccountName: 'Backup',
      priorityClassName: 'system_critical',
      nodeName: 'Node1',
      hostname: 'a.b',
      activeDeadlineSeconds: 0,
    };
    expect(paths(podSpecProblems(spec))).toEqual([
      'nodeSelector[kubernetes.io/hostname]',
      'affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey',
      'tolerations[0].value',
      'serviceAccountName',
      'priorityClassName',
      'nodeName',
      'hostname',
      'activeDeadlineSeconds',
    ]);
  });

  test('pod template metadata', () => {
    expect(
      paths(
        podTemplateProblems({
          metadata: { labels: { a: '-' }, annotations: { 'b c': '' } },
          spec: { containers: [container('main')] },
        }),
      ),
    ).toEqual(['metadata.labels[a]', 'metadata.annotations[b c]']);
  });
});

describe('the list keys of server-side apply, ports, pull policies', () => {
  const spec = (c: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    containers: [container('main', c)],
    ...extra,
  });

  test('env names, imagePullSecrets, ports (containerPort and protocol) are each listed once', () => {
    expect(
      podSpecProblems(
        spec(
          {
            env: [
              { name: 'A', value: '1' },
              { name: 'A', value: '2' },
            ],
            ports: [
              { containerPort: 80 },
              { containerPort: 80, protocol: 'TCP' },
              { containerPort: 80, protocol: 'UDP' },
            ],
          },
          { imagePullSecrets: [{ name: 'r' }, { name: 'r' }] },
        ),
      ),
    ).toEqual([
      {
        path: 'containers[0].env[1].name',
        message: 'received "A"; env var names must be unique (server-side apply keys the list by name)',
      },
      {
        path: 'containers[0].ports[1].containerPort',
        message:
          'received 80 ("TCP"); a port must be listed once (server-side apply keys ports by containerPort and protocol)',
      },
      {
        path: 'imagePullSecrets[1].name',
        message: 'received "r"; image pull Secret names must be unique (server-side apply keys the list by name)',
      },
    ]);
  });

  test('port numbers, names and protocols; image pull policies', () => {
    const problems = podSpecProblems(
      spec({
        imagePullPolicy: 'always',
        ports: [
          { containerPort: 0, name: 'a--b' },
          { containerPort: 65536, protocol: 'tcp', name: 'web' },
          { containerPort: 1, name: 'web' },
        ],
      }),
    );
    expect(problems.map((p) => p.path)).toEqual([
      'containers[0].imagePullPolicy',
      'containers[0].ports[0].containerPort',
      'containers[0].ports[0].name',
      'containers[0].ports[1].containerPort',
      'containers[0].ports[1].protocol',
      'containers[0].ports[2].name',
    ]);
    expect(problems[1].message).toBe('received 0; must be between 1 and 65535, inclusive');
    expect(problems[5].message).toBe('received "web"; port names must be unique within the container');
    expect(
      podSpecProblems(
        spec({ imagePullPolicy: 'Never', ports: [{ containerPort: 65535, name: 'a-1', protocol: 'SCTP' }] }),
      ),
    ).toEqual([]);
  });
});
