// Errors (test/jsii/java.test.ts): an invalid prop gives the package's error, its path as the props are
// spelled in Java (camelCase, as the builders), and leaves no construct behind; a handle asked for without its
// key names the construct as in TypeScript. Prints each message; exits 1 if the invalid props threw, 0 if not.
package example;

import io.github.backupcronjobs.cdk8s.MetricsOptions;
import io.github.backupcronjobs.cdk8s.RedisBackupSchedule;
import io.github.backupcronjobs.cdk8s.RedisBackupScheduleProps;
import io.github.backupcronjobs.cdk8s.RedisSentinel;
import io.github.backupcronjobs.cdk8s.S3Destination;
import io.github.backupcronjobs.cdk8s.SecretKeyRef;
import java.util.List;
import java.util.stream.Collectors;
import org.cdk8s.App;
import org.cdk8s.Chart;
import org.cdk8s.ChartProps;
import software.constructs.IConstruct;

public final class Invalid {
  public static void main(String[] args) {
    App app = new App();
    Chart chart = new Chart(app, "backups", ChartProps.builder().namespace("backups").build());
    RedisBackupSchedule two = new RedisBackupSchedule(chart, "two", RedisBackupScheduleProps.builder()
        .name("two")
        .shards(List.of("shard01", "shard02"))
        .sentinel(RedisSentinel.builder().addresses(List.of("sentinel.redis.svc:26379")).build())
        .s3(S3Destination.builder().bucket("cache-backups").region("us-east-1").build())
        .build());
    try {
      two.cronJob();
    } catch (RuntimeException e) {
      System.out.println(e.getMessage());
    }
    try {
      new RedisBackupSchedule(chart, "cache", RedisBackupScheduleProps.builder()
          .name("cache")
          .shards(List.of("shard01"))
          .sentinel(RedisSentinel.builder()
              .addresses(List.of("sentinel.redis.svc:26379"))
              .passwordSecret(SecretKeyRef.builder().name("Not A Name").key("password").build())
              .build())
          .s3(S3Destination.builder().bucket("cache-backups").region("us-east-1").build())
          .metrics(MetricsOptions.builder()
              .bearerTokenSecret(SecretKeyRef.builder().name("push-token").key("token").build())
              .build())
          .build());
    } catch (RuntimeException e) { // jsii throws the JavaScript error as a software.amazon.jsii.JsiiError
      System.out.println(e.getClass().getName() + ": " + e.getMessage());
      System.out.println("children: " + chart.getNode().getChildren().stream()
          .map((IConstruct c) -> c.getNode().getId())
          .collect(Collectors.toList()));
      System.exit(1);
    }
  }
}
