// Commands and their Debian packages: a missing tool fails with the package to install.
import * as fs from 'fs';
import * as path from 'path';
import { awsCliPath, requireCommands, startPushgateway, startRedis } from '.';

async function withPath<T>(p: string, fn: () => Promise<T>): Promise<T> {
  const saved = process.env.PATH;
  process.env.PATH = p;
  try {
    return await fn();
  } finally {
    process.env.PATH = saved;
  }
}

describe('requireCommands / missing binaries', () => {
  test('all service binaries of the integration tests are installed', () => {
    const found = requireCommands(
      'redis-server',
      'redis-sentinel',
      'redis-cli',
      'etcd',
      'etcdctl',
      'prometheus-pushgateway',
      'openssl',
      'curl',
    );
    expect(Object.keys(found)).toHaveLength(8);
    for (const p of Object.values(found)) expect(path.isAbsolute(p)).toBe(true);
    expect(fs.existsSync(awsCliPath())).toBe(true);
  });

  test('a missing command fails with the Debian package to install', async () => {
    expect(() => requireCommands('sh', 'no-such-command-xyz')).toThrow(/no-such-command-xyz/);
    await withPath('/nonexistent', async () => {
      expect(() => requireCommands('etcdctl', 'redis-cli')).toThrow(
        /apt-get install -y --no-install-recommends etcd-client redis-tools/,
      );
      await expect(startPushgateway()).rejects.toThrow(/prometheus-pushgateway/);
      await expect(startRedis()).rejects.toThrow(/redis-tools|redis-server/);
    });
  });
});
