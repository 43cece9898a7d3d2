// Errors (test/jsii/go.test.ts): an invalid prop gives the package's error (a panic), its path as the props
// are spelled in the module (camelCase, as in TypeScript), and leaves no construct behind; a handle asked for
// without its key names the construct as in TypeScript. Prints each message; exits 1 if the invalid props
// panicked, 0 if not.
package main

import (
	"fmt"
	"os"

	"github.com/aws/jsii-runtime-go"
	bc "github.com/backup-cronjobs/backup-cronjobs-go/backupcronjobscdk8s"
	"github.com/cdk8s-team/cdk8s-core-go/cdk8s/v2"
)

// try runs f and returns what it panicked with (nil if it did not).
func try(f func()) (recovered interface{}) {
	defer func() { recovered = recover() }()
	f()
	return nil
}

func main() {
	app := cdk8s.NewApp(nil)
	chart := cdk8s.NewChart(app, jsii.String("backups"), &cdk8s.ChartProps{Namespace: jsii.String("backups")})
	two := bc.NewRedisBackupSchedule(chart, jsii.String("two"), &bc.RedisBackupScheduleProps{
		Name:     jsii.String("two"),
		Shards:   &[]interface{}{"shard01", "shard02"},
		Sentinel: &bc.RedisSentinel{Addresses: jsii.Strings("sentinel.redis.svc:26379")},
		S3:       &bc.S3Destination{Bucket: jsii.String("cache-backups"), Region: jsii.String("us-east-1")},
	})
	if r := try(func() { two.CronJob(nil) }); r != nil {
		fmt.Println(r)
	}
	r := try(func() {
		bc.NewRedisBackupSchedule(chart, jsii.String("cache"), &bc.RedisBackupScheduleProps{
			Name:   jsii.String("cache"),
			Shards: &[]interface{}{"shard01"},
			Sentinel: &bc.RedisSentinel{
				Addresses:      jsii.Strings("sentinel.redis.svc:26379"),
				PasswordSecret: &bc.SecretKeyRef{Name: jsii.String("Not A Name"), Key: jsii.String("password")},
			},
			S3: &bc.S3Destination{Bucket: jsii.String("cache-backups"), Region: jsii.String("us-east-1")},
			Metrics: &bc.MetricsOptions{
				BearerTokenSecret: &bc.SecretKeyRef{Name: jsii.String("push-token"), Key: jsii.String("token")},
			},
		})
	})
	if r != nil {
		fmt.Println(r)
		ids := []string{}
		for _, c := range *chart.Node().Children() {
			ids = append(ids, *c.Node().Id())
		}
		fmt.Println("children:", ids)
		os.Exit(1)
	}
}
