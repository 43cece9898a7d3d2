/**
 * Test harness: real servers on 127.0.0.1 for the backup scripts' integration tests.
 *
 * Every starter
 *  - picks free ports (bind port 0, read it, release it; retried when the server then fails with
 *    "address already in use"),
 *  - runs the server as a FOREGROUND child process of the test process (never --daemonize),
 *  - keeps all its data in a fresh temp dir under os.tmpdir(), removed by stop(),
 *  - waits until the server really answers, or throws an Error that includes the server's log tail,
 *  - throws an Error naming the Debian package to install when a binary is missing, or the script that
 *    installs it (moto: scripts/install-moto.sh) (tests must FAIL, never skip, when a service is missing),
 *  - returns a handle whose stop() sends SIGTERM, then SIGKILL after 3 s, and waits for the exit.
 *
 * Safety nets against orphan processes:
 *  - every running handle is in a registry; stopAll() stops them all. Importing this module from a jest
 *    test file registers `afterAll(stopAll)` automatically (call stopAll yourself too if you like);
 *  - every server PID is also handed to a tiny `sh` watchdog whose stdin is a pipe from this process:
 *    if the test process dies without cleaning up (crash, SIGKILL of a jest worker), the watchdog
 *    reads EOF and kills the servers that were still registered (TERM, then KILL after 3 s).
 */
export * from './commands';
export { freePort, runningServices, stopAll } from './processes';
export type { BaseHandle } from './processes';
export * from './redis';
export * from './etcd';
export * from './s3';
export * from './moto';
export * from './pushgateway';
export * from './prometheus';
