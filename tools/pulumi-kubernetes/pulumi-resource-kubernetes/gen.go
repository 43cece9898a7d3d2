// Writes schema-embed.json and terraform-mapping-embed.json from the schema.json and
// terraform-mapping.json of the provider module this module requires, as the provider's
// cmd/pulumi-resource-kubernetes/generate.go does: the schema's version set to $VERSION (without a
// leading v), both re-serialized compactly. Run by `go generate` (scripts/build-test-tools.sh).

//go:build ignore

package main

import (
	"encoding/json"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

const providerModule = "github.com/pulumi/pulumi-kubernetes/provider/v4"

func main() {
	version := strings.TrimPrefix(os.Getenv("VERSION"), "v")
	if version == "" {
		log.Fatal("gen.go: VERSION is not set")
	}
	// The module's directory in the module cache, at the version go.mod requires.
	out, err := exec.Command("go", "mod", "download", "-json", providerModule).Output()
	if err != nil {
		log.Fatalf("gen.go: go mod download %s: %v", providerModule, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		log.Fatalf("gen.go: no directory for %s in %q", providerModule, out)
	}
	cmd := filepath.Join(mod.Dir, "cmd", "pulumi-resource-kubernetes")

	var spec schema.PackageSpec
	read(filepath.Join(cmd, "schema.json"), &spec)
	spec.Version = version
	write("schema-embed.json", spec)

	var mapping interface{}
	read(filepath.Join(cmd, "terraform-mapping.json"), &mapping)
	write("terraform-mapping-embed.json", mapping)
}

func read(path string, v interface{}) {
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		log.Fatalf("gen.go: %s: %v", path, err)
	}
}

func write(path string, v interface{}) {
	b, err := json.Marshal(v)
	if err != nil {
		log.Fatalf("gen.go: %s: %v", path, err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		log.Fatal(err)
	}
}
