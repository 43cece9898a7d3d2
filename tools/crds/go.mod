// The CustomResourceDefinitions of the custom kinds the package emits, installed into the test
// control plane: the PrometheusRule of prometheus-operator and OpenShift's
// SecurityContextConstraints, as their projects generate them. Copied by scripts/build-test-tools.sh
// (nothing imports these modules: do not run go mod tidy here, it would drop them).
module backup-cronjobs.io/tools/crds

go 1.26.0

require (
	github.com/openshift/api v0.0.0-20260213204242-d34f11c515b3
	github.com/prometheus-operator/prometheus-operator v0.85.0
)
