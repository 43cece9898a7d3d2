# The README's cdk8s app (README.md, "## cdk8s") in Python, against the jsii module (test/jsii/python.test.ts
# compares what it writes with the TypeScript app's output, byte for byte). Run from a directory holding
# policies/redis-sharded.yaml; `cdk8s synth` (or CDK8S_OUTDIR) sets the output directory.
import cdk8s
import cdk8s_plus_33 as kplus
from backup_cronjobs_cdk8s import BackupPolicy, EtcdBackupSchedule, RedisBackupSchedule

app = cdk8s.App()
chart = cdk8s.Chart(app, "backups", namespace="backups")  # every object below lands in "backups"

# One CronJob per shard: cache-shard01, cache-shard02.
cache = RedisBackupSchedule(
    chart,
    "cache",
    name="cache",
    schedule=cdk8s.Cron.schedule(minute="0", hour="3"),
    timeout=cdk8s.Duration.minutes(20),
    shards=["shard01", "shard02"],
    sentinel={
        "addresses": ["sentinel.redis.svc:26379"],
        "password_secret": {
            "name": kplus.Secret.from_secret_name(chart, "redis-auth", "redis-auth"),
            "key": "password",
        },
    },
    s3={"bucket": "cache-backups", "region": "us-east-1"},
    retention={"max_age": cdk8s.Duration.days(14)},
)

# Escape hatches on the generated objects, by target: the shard, the node, '<keyspace>/<shard>'.
cache.cron_job("shard01").add_json_patch(
    cdk8s.JsonPatch.add("/spec/jobTemplate/spec/template/spec/priorityClassName", "backup-low")
)
cache.cron_job("shard02").metadata.add_annotation("example.com/owner", "cache-team")

# A cdk8s-plus claim where the policy names a PersistentVolumeClaim.
snapshots = kplus.PersistentVolumeClaim(
    chart,
    "snapshots",
    storage=cdk8s.Size.gibibytes(20),
    access_modes=[kplus.PersistentVolumeAccessMode.READ_WRITE_MANY],
)
EtcdBackupSchedule(
    chart,
    "etcd",
    name="etcd",
    mode="perNode",
    nodes=["cp-1", "cp-2"],
    destination={"persistent_volume_claim": {"claim_name": snapshots}},
)

# A whole policy from a file: its own namespace (here "default") wins over the chart's.
BackupPolicy.from_file(chart, "redis", "policies/redis-sharded.yaml")
app.synth()
