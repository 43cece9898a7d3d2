// The provider's own cmd/pulumi-resource-kubernetes/main.go, with the two embedded files generated
// by gen.go (what the provider's Makefile does with its generate.go) from the provider module.

//go:generate go run gen.go

package main

import (
	_ "embed"

	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
)

//go:embed schema-embed.json
var pulumiSchema []byte

//go:embed terraform-mapping-embed.json
var terraformMapping []byte

func main() {
	provider.Serve("kubernetes", version.Version, pulumiSchema, terraformMapping)
}
