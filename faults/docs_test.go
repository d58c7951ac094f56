package faults_test

import (
	"os"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/faults"
)

// docs/SCENARIOS.md's fault tables are the registry's: regenerate with
// `faultlab list --faults` when a kind or mode is added.
func TestDocsTableIsTheRegistry(t *testing.T) {
	b, err := os.ReadFile("../docs/SCENARIOS.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- faults:begin (generated: faultlab list --faults) -->\n", "<!-- faults:end -->"
	s := string(b)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("docs/SCENARIOS.md: no %q … %q block", begin, end)
	}
	if got, want := s[i+len(begin):j], faults.Markdown(); got != want {
		t.Fatalf("docs/SCENARIOS.md fault tables are stale; replace the block with `faultlab list --faults`:\n%s", want)
	}
}
