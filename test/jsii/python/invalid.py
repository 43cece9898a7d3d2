# An invalid prop (test/jsii/python.test.ts): the package's error, its path in Python's spelling. Prints the
# message of the exception and exits 1; exits 0 if nothing is raised.
import sys

import cdk8s
from backup_cronjobs_cdk8s import RedisBackupSchedule

app = cdk8s.App()
chart = cdk8s.Chart(app, "backups", namespace="backups")
try:
    RedisBackupSchedule(
        chart,
        "cache",
        name="cache",
        shards=["shard01"],
        sentinel={"addresses": ["sentinel.redis.svc:26379"], "password_secret": {"name": "Not A Name", "key": "password"}},
        s3={"bucket": "cache-backups", "region": "us-east-1"},
    )
except Exception as e:  # jsii raises the JavaScript error as a RuntimeError
    print(str(e))
    # no half-made construct is left behind: the chart synthesizes (to nothing)
    print("children:", [c.node.id for c in chart.node.children])
    sys.exit(1)
