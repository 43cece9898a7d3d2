// The README's cdk8s app in Go (test/jsii/go.test.ts compares what it writes with the TypeScript app's output,
// byte for byte). Run from a directory holding policies/redis-sharded.yaml; `cdk8s synth` (or CDK8S_OUTDIR)
// sets the output directory. No cdk8s-plus for Go is on the Go module proxy: the Secret is named by its name,
// the claim is an ApiObject.
package main

import (
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	bc "github.com/backup-cronjobs/backup-cronjobs-go/backupcronjobscdk8s"
	"github.com/cdk8s-team/cdk8s-core-go/cdk8s/v2"
)

func main() {
	app := cdk8s.NewApp(nil)
	// every object below lands in "backups"
	chart := cdk8s.NewChart(app, jsii.String("backups"), &cdk8s.ChartProps{Namespace: jsii.String("backups")})

	// One CronJob per shard: cache-shard01, cache-shard02.
	cache := bc.NewRedisBackupSchedule(chart, jsii.String("cache"), &bc.RedisBackupScheduleProps{
		Name:     jsii.String("cache"),
		Schedule: cdk8s.Cron_Schedule(&cdk8s.CronOptions{Minute: jsii.String("0"), Hour: jsii.String("3")}),
		Timeout:  cdk8s.Duration_Minutes(jsii.Number(20)),
		Shards:   &[]interface{}{"shard01", "shard02"},
		Sentinel: &bc.RedisSentinel{
			Addresses:      jsii.Strings("sentinel.redis.svc:26379"),
			PasswordSecret: &bc.SecretKeyRef{Name: jsii.String("redis-auth"), Key: jsii.String("password")},
		},
		S3:        &bc.S3Destination{Bucket: jsii.String("cache-backups"), Region: jsii.String("us-east-1")},
		Retention: &bc.RetentionOptions{MaxAge: cdk8s.Duration_Days(jsii.Number(14))},
	})

	// Escape hatches on the generated objects, by target: the shard, the node, '<keyspace>/<shard>'.
	cache.CronJob(jsii.String("shard01")).AddJsonPatch(
		cdk8s.JsonPatch_Add(jsii.String("/spec/jobTemplate/spec/template/spec/priorityClassName"), "backup-low"))
	cache.CronJob(jsii.String("shard02")).Metadata().AddAnnotation(jsii.String("example.com/owner"), jsii.String("cache-team"))

	// A PersistentVolumeClaim where the policy names one: an ApiObject (its own construct, as cdk8s-plus
	// builds one), given as the claim.
	snapshots := cdk8s.NewApiObject(constructs.NewConstruct(chart, jsii.String("snapshots")), jsii.String("Resource"),
		&cdk8s.ApiObjectProps{ApiVersion: jsii.String("v1"), Kind: jsii.String("PersistentVolumeClaim")})
	snapshots.AddJsonPatch(cdk8s.JsonPatch_Add(jsii.String("/spec"), map[string]interface{}{
		"accessModes": []string{"ReadWriteMany"},
		"resources":   map[string]interface{}{"requests": map[string]string{"storage": "20Gi"}},
		"volumeMode":  "Filesystem",
	}))
	bc.NewEtcdBackupSchedule(chart, jsii.String("etcd"), &bc.EtcdBackupScheduleProps{
		Name:  jsii.String("etcd"),
		Mode:  jsii.String("perNode"),
		Nodes: &[]interface{}{"cp-1", "cp-2"},
		Destination: &bc.EtcdDestination{
			PersistentVolumeClaim: &bc.EtcdPvcDestination{ClaimName: snapshots},
		},
	})

	// A whole policy from a file: its own namespace (here "default") wins over the chart's.
	bc.BackupPolicy_FromFile(chart, jsii.String("redis"), jsii.String("policies/redis-sharded.yaml"))
	app.Synth()
}
