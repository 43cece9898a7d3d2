module example.com/backups

go 1.25.0

require (
	github.com/aws/constructs-go/constructs/v10 v10.4.2
	github.com/aws/jsii-runtime-go v1.140.0
	github.com/backup-cronjobs/backup-cronjobs-go/backupcronjobscdk8s v0.1.0
	github.com/cdk8s-team/cdk8s-core-go/cdk8s/v2 v2.68.91
)

require (
	github.com/Masterminds/semver/v3 v3.5.0 // indirect
	github.com/fatih/color v1.19.0 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	github.com/yuin/goldmark v1.7.16 // indirect
	golang.org/x/lint v0.0.0-20241112194109-818c5a804067 // indirect
	golang.org/x/mod v0.39.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/telemetry v0.0.0-20260811182544-a038080d80e5 // indirect
	golang.org/x/tools v0.49.0 // indirect
	golang.org/x/tools/cmd/godoc v0.1.0-deprecated // indirect
	golang.org/x/tools/godoc v0.1.0-deprecated // indirect
)

// The module of the build (scripts/build-jsii.sh --all-targets: dist/go/backupcronjobscdk8s), linked here by
// test/jsii/go.test.ts.
replace github.com/backup-cronjobs/backup-cronjobs-go/backupcronjobscdk8s => ./backupcronjobscdk8s
