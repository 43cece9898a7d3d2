// This machine's processes, read from /proc: to find a running container's children in the tests.
import * as fs from 'fs';

export interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly argv: string[];
}

/** The processes of this machine (from /proc; those that end while it is read are left out). */
export function processes(): ProcessInfo[] {
  const list: ProcessInfo[] = [];
  for (const entry of fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').slice(0, -1);
      list.push({ pid: Number(entry), ppid, argv });
    } catch {
      /* gone meanwhile */
    }
  }
  return list;
}

/** Every process below `pid`. */
export function descendants(pid: number): ProcessInfo[] {
  const all = processes();
  const found: ProcessInfo[] = [];
  for (let parents = [pid]; parents.length > 0;) {
    const children = all.filter((p) => parents.includes(p.ppid));
    found.push(...children);
    parents = children.map((p) => p.pid);
  }
  return found;
}

/**
 * Sends `signal` to every pid so that each has it pending before any of them runs on, as when the
 * kubelet stops all containers of a pod at once: each is stopped first, signalled, then continued.
 * (Plain kill calls one after another let a loaded machine run the first one's end before the next
 * one is signalled.)
 */
export function signalAtOnce(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) process.kill(pid, 'SIGSTOP');
  for (const pid of pids) process.kill(pid, signal);
  for (const pid of pids) process.kill(pid, 'SIGCONT');
}
