# Errors (test/jsii/python.test.ts): an invalid prop gives the package's error, its path in Python's spelling,
# and leaves no construct behind; a handle asked for without its key names the construct as in TypeScript.
# Prints each message; exits 1 if the invalid props raised, 0 if not.
import sys

import cdk8s
from backup_cronjobs_cdk8s import RedisBackupSchedule

app = cdk8s.App()
chart = cdk8s.Chart(app, "backups", namespace="backups")
two = RedisBackupSchedule(
    chart,
    "two",
    name="two",
    shards=["shard01", "shard02"],
    sentinel={"addresses": ["sentinel.redis.svc:26379"]},
    s3={"bucket": "cache-backups", "region": "us-east-1"},
)
try:
    two.cron_job()
except Exception as e:
    print(str(e))
try:
    RedisBackupSchedule(
        chart,
        "cache",
        name="cache",
        shards=["shard01"],
        sentinel={
            "addresses": ["sentinel.redis.svc:26379"],
            "password_secret": {"name": "Not A Name", "key": "password"},
        },
        s3={"bucket": "cache-backups", "region": "us-east-1"},
        metrics={"bearer_token_secret": {"name": "push-token", "key": "token"}},
    )
except Exception as e:  # jsii raises the JavaScript error as a RuntimeError
    print(str(e))
    print("children:", [c.node.id for c in chart.node.children])
    sys.exit(1)
