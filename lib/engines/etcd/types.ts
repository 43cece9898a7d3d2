/** The fields of the engine's spec: generated from its schema (schema.ts) into types.generated.ts. */
export type * from './types.generated';

/**
 * Which nodes run the backups, by their role label (the matching taints are
 * tolerated):
 * - `control-plane`: kubeadm, `node-role.kubernetes.io/control-plane`
 * - `master`: OpenShift (and legacy kubeadm), `node-role.kubernetes.io/master`
 * - `etcd`: k3s and RKE2, `node-role.kubernetes.io/etcd`
 */
export type EtcdNodeRole = 'control-plane' | 'master' | 'etcd';

/**
 * The cluster's distribution: where its etcd client certificates are, which
 * nodes run etcd, and (OpenShift) the objects its pods need. Fields set in the
 * spec win over the distribution's values, field by field.
 * - `kubeadm`: `/etc/kubernetes/pki/etcd` (`ca.crt`, `healthcheck-client.crt`,
 *   `healthcheck-client.key`), `nodeRole: control-plane`;
 * - `openshift`: the files OpenShift's own `cluster-backup.sh` uses, under
 *   `/etc/kubernetes/static-pod-resources/etcd-certs` (the CA bundle
 *   `configmaps/etcd-all-bundles/server-ca-bundle.crt`, the node's own
 *   `secrets/etcd-all-certs/etcd-peer-<node>.crt|.key`), `nodeRole: master`;
 *   and the pods run under a ServiceAccount `<policy>-sa` that may use a
 *   SecurityContextConstraints admitting exactly them (rendered with the
 *   CronJobs: ServiceAccount, SecurityContextConstraints, Role, RoleBinding);
 * - `k3s`, `rke2`: `/var/lib/rancher/<k3s|rke2>/server/tls/etcd` (`server-ca.crt`,
 *   `client.crt`, `client.key`), `nodeRole: etcd`.
 */
export type EtcdDistribution = 'kubeadm' | 'openshift' | 'k3s' | 'rke2';
