// The README's cdk8s app in Java (test/jsii/java.test.ts compares what it writes with the TypeScript app's
// output, byte for byte). Run from a directory holding policies/redis-sharded.yaml; `cdk8s synth` (or
// CDK8S_OUTDIR) sets the output directory. No cdk8s-plus for Java is on Maven Central: the Secret is named by
// its name, the claim is an ApiObject.
package example;

import io.github.backupcronjobs.cdk8s.BackupPolicy;
import io.github.backupcronjobs.cdk8s.EtcdBackupSchedule;
import io.github.backupcronjobs.cdk8s.EtcdBackupScheduleProps;
import io.github.backupcronjobs.cdk8s.EtcdDestination;
import io.github.backupcronjobs.cdk8s.EtcdPvcDestination;
import io.github.backupcronjobs.cdk8s.RedisBackupSchedule;
import io.github.backupcronjobs.cdk8s.RedisBackupScheduleProps;
import io.github.backupcronjobs.cdk8s.RedisSentinel;
import io.github.backupcronjobs.cdk8s.RetentionOptions;
import io.github.backupcronjobs.cdk8s.S3Destination;
import io.github.backupcronjobs.cdk8s.SecretKeyRef;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.cdk8s.ApiObject;
import org.cdk8s.ApiObjectProps;
import org.cdk8s.App;
import org.cdk8s.Chart;
import org.cdk8s.ChartProps;
import org.cdk8s.Cron;
import org.cdk8s.CronOptions;
import org.cdk8s.Duration;
import org.cdk8s.JsonPatch;
import software.constructs.Construct;

public final class Main {
  public static void main(String[] args) {
    App app = new App();
    // every object below lands in "backups"
    Chart chart = new Chart(app, "backups", ChartProps.builder().namespace("backups").build());

    // One CronJob per shard: cache-shard01, cache-shard02.
    RedisBackupSchedule cache = new RedisBackupSchedule(chart, "cache", RedisBackupScheduleProps.builder()
        .name("cache")
        .schedule(Cron.schedule(CronOptions.builder().minute("0").hour("3").build()))
        .timeout(Duration.minutes(20))
        .shards(List.of("shard01", "shard02"))
        .sentinel(RedisSentinel.builder()
            .addresses(List.of("sentinel.redis.svc:26379"))
            .passwordSecret(SecretKeyRef.builder().name("redis-auth").key("password").build())
            .build())
        .s3(S3Destination.builder().bucket("cache-backups").region("us-east-1").build())
        .retention(RetentionOptions.builder().maxAge(Duration.days(14)).build())
        .build());

    // Escape hatches on the generated objects, by target: the shard, the node, '<keyspace>/<shard>'.
    cache.cronJob("shard01").addJsonPatch(
        JsonPatch.add("/spec/jobTemplate/spec/template/spec/priorityClassName", "backup-low"));
    cache.cronJob("shard02").getMetadata().addAnnotation("example.com/owner", "cache-team");

    // A PersistentVolumeClaim where the policy names one: an ApiObject (its own construct, as cdk8s-plus
    // builds one), given as the claim.
    ApiObject snapshots = new ApiObject(new Construct(chart, "snapshots"), "Resource", ApiObjectProps.builder()
        .apiVersion("v1")
        .kind("PersistentVolumeClaim")
        .build());
    snapshots.addJsonPatch(JsonPatch.add("/spec", new TreeMap<>(Map.of(
        "accessModes", List.of("ReadWriteMany"),
        "resources", Map.of("requests", Map.of("storage", "20Gi")),
        "volumeMode", "Filesystem"))));
    new EtcdBackupSchedule(chart, "etcd", EtcdBackupScheduleProps.builder()
        .name("etcd")
        .mode("perNode")
        .nodes(List.of("cp-1", "cp-2"))
        .destination(EtcdDestination.builder()
            .persistentVolumeClaim(EtcdPvcDestination.builder().claimName(snapshots).build())
            .build())
        .build());

    // A whole policy from a file: its own namespace (here "default") wins over the chart's.
    BackupPolicy.fromFile(chart, "redis", "policies/redis-sharded.yaml");
    app.synth();
  }
}
