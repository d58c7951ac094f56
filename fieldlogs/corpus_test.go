package fieldlogs

import (
	"strings"
	"testing"
)

func TestCorpusLoads(t *testing.T) {
	cs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) < 40 {
		t.Fatalf("%d cases, want at least 40", len(cs))
	}
	if err := Validate(cs, nil); err != nil {
		t.Fatal(err)
	}
	tun, held := Split(cs)
	if len(tun)+len(held) != len(cs) || 3*len(held) < len(cs) {
		t.Fatalf("split %d/%d", len(tun), len(held))
	}
	// The second batch is held out as a whole and has at least 15 cases
	// (issue 15); the first batch keeps its 42.
	n2 := 0
	for _, c := range cs {
		if c.Batch == 2 {
			n2++
		}
	}
	if n2 < 15 || len(cs)-n2 != 42 {
		t.Fatalf("batch 2: %d cases, first batch %d; want at least 15 and 42", n2, len(cs)-n2)
	}
}

func TestParseErrors(t *testing.T) {
	good := "id: a-1\nurl: https://github.com/o/r/issues/1\ncause: c\nfix: f\nconfidence: high\nclass: x\nlog: |\n  E0101 a.cpp:1] x\n"
	if _, err := Parse("good.yaml", []byte(good)); err != nil {
		t.Fatal(err)
	}
	if c, err := Parse("good2.yaml", []byte(good+"heldout: true\nbatch: 2\n")); err != nil || c.Batch != 2 || !c.Heldout {
		t.Fatalf("batch 2: %+v, %v", c, err)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"unknown key", good + "extra: 1\n", "field extra not found"},
		{"bad url", strings.Replace(good, "https://github.com/o/r/issues/1", "http://example.com", 1), `bad.yaml:2: url: "http://example.com" is not a GitHub`},
		{"bad confidence", strings.Replace(good, "high", "sure", 1), `bad.yaml:5: confidence: "sure": one of high, medium, low`},
		{"empty log", strings.Replace(good, "log: |\n  E0101 a.cpp:1] x\n", "log: \"\"\n", 1), "bad.yaml:7: log: empty"},
		{"bad id", strings.Replace(good, "a-1", "A 1", 1), `bad.yaml:1: id: "A 1"`},
		{"batch 1", good + "batch: 1\n", "bad.yaml:9: batch: 1: omit it for the first batch, or 2..2"},
		{"batch 3", good + "batch: 3\n", "bad.yaml:9: batch: 3: omit it"},
		{"batch 2 tuning", good + "batch: 2\n", "bad.yaml:9: batch: batch 2 is held out as a whole: set heldout: true"},
	} {
		_, err := Parse("bad.yaml", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestValidateCatchesDuplicatesAndSplit(t *testing.T) {
	cs := []Case{{ID: "a", File: "1.yaml", Class: "x"}, {ID: "a", File: "2.yaml", Class: "y", Heldout: true}, {ID: "b", File: "3.yaml", Class: "x"}, {ID: "c", File: "4.yaml", Class: "x"}}
	err := Validate(cs, func(c string) bool { return c == "x" })
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`2.yaml: id "a" already used by 1.yaml`, `2.yaml: class "y" is neither`, "1 of 4 cases held out"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in %v", want, err)
		}
	}
}
