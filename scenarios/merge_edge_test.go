package scenarios

import "testing"

// Self-referencing and nested merges end (an error or a scenario), never a
// hang or a panic.
func TestMergeKeyCycles(t *testing.T) {
	for _, src := range []string{
		validScenario + "x-a: &a {<<: *a}\n",
		validScenario + "x-a: &a\n  b: {<<: *a}\n",
		validScenario + "x-a: &a {A: b}\nx-b: &b {<<: *a, C: d}\nconfig: {env: {<<: *b}}\n",
		validScenario + "config: {env: {<<: []}}\n",
		validScenario + "config: {env: {<<: null}}\n",
	} {
		_, _ = Parse("f.yaml", []byte(src))
	}
	sc, err := Parse("f.yaml", []byte(validScenario+"x-a: &a {A: b}\nx-b: &b {<<: *a, C: d}\nconfig: {env: {<<: *b}}\n"))
	if err != nil || len(sc.Config.Env) != 2 || *sc.Config.Env["A"] != "b" || *sc.Config.Env["C"] != "d" {
		t.Fatalf("nested merge: %v %v", err, sc)
	}
}
