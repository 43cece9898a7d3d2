/** One priority per serialization group: a check across the targets of a policy (resolve.ts). */
import { IssueList, show } from '../policy/errors';
import type { PolicyPath } from '../policy/errors';

/**
 * The pods of one serialization group must run at one priority. The scheduler resolves a pod's
 * required anti-affinity by preemption: a pending pod of the group evicts a running one of lower
 * priority (seen on the real kube-scheduler: an etcd snapshot, system-node-critical, preempted the
 * running defragmentation), so two priorities in a group would break its one-at-a-time promise.
 */
export class GroupPriorities {
  private readonly groups = new Map<string, { priority: string | undefined; cronJob: string; path: PolicyPath }[]>();

  /** A CronJob of `group` whose pod runs at `priority`, set (or to be set) at `podLevel`.pod.priorityClassName. */
  add(group: string, priority: string | undefined, cronJob: string, podLevel: PolicyPath): void {
    const path = [...podLevel, 'pod', 'priorityClassName'];
    const members = this.groups.get(group);
    if (members) members.push({ priority, cronJob, path });
    else this.groups.set(group, [{ priority, cronJob, path }]);
  }

  check(issues: IssueList): void {
    for (const [group, members] of this.groups) {
      const first = members[0];
      for (const m of members) {
        if (m.priority === first.priority) continue;
        const name = (p: string | undefined) => (p === undefined ? 'none (the cluster default)' : show(p));
        issues.add(
          m.path,
          `CronJob ${m.cronJob} would run at priorityClassName ${name(m.priority)}, and ${first.cronJob} of the same ` +
            `serialization group ${show(group)} at ${name(first.priority)}: the scheduler preempts a running pod of the ` +
            'group for a pending one of higher priority, so every pod of a group must have the same priorityClassName',
        );
      }
    }
  }
}
