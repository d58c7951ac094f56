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

// show and explain speak to a person: no {{placeholders}} in what they
// print for reading (show's stdout stays the scenario file).
func TestNoPlaceholdersForPeople(t *testing.T) {
	out, _, err := executeIn(t, "", "show", "setup/tenant-unsupported")
	if err != nil || !strings.Contains(out, `MOONCAKE_MASTER: "{{master}}"`) {
		t.Fatalf("show to a file: %v\n%s", err, out)
	}
	out, _, err = executeIn(t, "", "show", "--roles", "setup/tenant-unsupported")
	if err != nil || strings.Contains(out, "{{") {
		t.Fatalf("show --roles: %v\n%s", err, out)
	}
	log := "RuntimeError: MooncakeStore with standalone_storage=True requires MooncakeHostTensorAllocator. Please set standalone_storage=False or upgrade Mooncake by 'pip install mooncake-transfer-engine --upgrade'.\n"
	out, _, err = executeIn(t, log, "explain", "-")
	if c := exitCode(err); (c != exitOK && c != exitNothing) || strings.Contains(out, "{{") ||
		!strings.Contains(out, "remedy:  set MOONCAKE_MASTER=<the master's address>; set MOONCAKE_STANDALONE_STORAGE=false") {
		t.Fatalf("%v\n%s", err, out)
	}
}
