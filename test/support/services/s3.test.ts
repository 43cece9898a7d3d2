// s3rver through the harness's signed client and through the aws CLI; AWS Signature V4.
import * as crypto from 'crypto';
import { S3Handle, signV4, startS3, stopAll } from '.';

let s3: S3Handle;

/** The part of `aws s3api list-objects-v2`'s JSON output the test reads. */
interface ListObjectsV2Output {
  readonly Contents: readonly { readonly Key: string }[];
}

beforeAll(async () => {
  s3 = await startS3({ buckets: ['backups', 'other'] });
});

afterAll(() => stopAll());

describe('s3rver', () => {
  test('put/list/get roundtrip through the harness (binary-safe)', async () => {
    const body = crypto.randomBytes(100_000);
    await s3.putObject('backups', 'redis/main/2024-01-01T00:00:00Z.rdb.gz', body);
    await s3.putObject('backups', 'etcd/x y+z.db', 'small');
    await s3.putObject('other', 'redis/elsewhere', 'no');
    const all = await s3.listObjects('backups');
    expect(all.map((o) => [o.key, o.size])).toEqual([
      ['etcd/x y+z.db', 5],
      ['redis/main/2024-01-01T00:00:00Z.rdb.gz', 100_000],
    ]);
    expect((await s3.listObjects('backups', 'redis/')).map((o) => o.key)).toEqual([
      'redis/main/2024-01-01T00:00:00Z.rdb.gz',
    ]);
    expect(Buffer.compare(await s3.getObject('backups', 'redis/main/2024-01-01T00:00:00Z.rdb.gz'), body)).toBe(0);
    expect((await s3.getObject('backups', 'etcd/x y+z.db')).toString()).toBe('small');
    await expect(s3.getObject('backups', 'missing')).rejects.toThrow(/HTTP 404/);
  });

  test('the aws CLI works against it with awsEnv() (no AWS_CA_BUNDLE), and sees the same objects', async () => {
    expect(s3.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s3.awsEnv()).not.toHaveProperty('AWS_CA_BUNDLE');
    await s3.aws(['s3', 'cp', '-', 's3://backups/cli/from-stdin.txt'], 'via cli\n');
    expect(await s3.listObjects('backups', 'cli/')).toEqual([
      expect.objectContaining({ key: 'cli/from-stdin.txt', size: 8 }),
    ]);
    const listed = JSON.parse(
      await s3.aws(['s3api', 'list-objects-v2', '--bucket', 'backups', '--prefix', 'etcd/']),
    ) as ListObjectsV2Output;
    expect(listed.Contents.map((c) => c.Key)).toEqual(['etcd/x y+z.db']);
  });

  test('setLastModified backdates an object; deleteObject removes it', async () => {
    await s3.putObject('backups', 'old/one', '1');
    const when = new Date('2020-02-03T04:05:06Z');
    await s3.setLastModified('backups', 'old/one', when);
    const [o] = await s3.listObjects('backups', 'old/');
    expect(o.lastModified.toISOString()).toBe('2020-02-03T04:05:06.000Z');
    await s3.deleteObject('backups', 'old/one');
    expect(await s3.listObjects('backups', 'old/')).toEqual([]);
  });

  test('signV4 matches the AWS documentation example (GET Object)', () => {
    const { authorization } = signV4({
      method: 'GET',
      host: 'examplebucket.s3.amazonaws.com',
      path: '/test.txt',
      headers: { Range: 'bytes=0-9' },
      payloadHash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      amzDate: '20130524T000000Z',
      region: 'us-east-1',
      service: 's3',
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    });
    expect(authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });
});
