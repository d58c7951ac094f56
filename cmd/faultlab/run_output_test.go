package main

import (
	"strings"
	"testing"
)

// A skip's reason is in the normal output, one short line per skip.
func TestSkipReasonWithoutVerbose(t *testing.T) {
	out, _, err := executeIn(t, "", "run", "setup/tenant-unsupported", "--mooncake-version", "0.3.13.post1")
	if exitCode(err) != exitNothing {
		t.Fatalf("exit %d: %v", exitCode(err), err)
	}
	want := "\nSKIP setup/tenant-unsupported @0.3.13.post1 on sim: scenario does not apply to Mooncake 0.3.13.post1 (versions: 0.3.9, 0.3.11.post1)\n"
	if !strings.Contains(out, want) || strings.Count(out, "SKIP ") != 1 {
		t.Fatalf("want %q in\n%s", want, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if len([]rune(l)) > skipLineWidth {
			t.Errorf("line longer than %d: %q", skipLineWidth, l)
		}
	}
}
