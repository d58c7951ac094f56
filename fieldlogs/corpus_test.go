package fieldlogs

import (
	"fmt"
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
	// The second to fourth and the seventh to twelfth batches are held out as a whole
	// (issue 15), the fifth, sixth and thirteenth are tuning data as a whole; the first
	// batch keeps its 42, the second its 15, the third and the seventh to
	// twelfth their 16, the fourth has at least 16, the fifth at least 32,
	// the sixth at least 16, the thirteenth (tuning) at least 9, the
	// fourteenth to twentieth (tuning) at least 6, 7, 3, 3, 9, 8 and 4.
	n := map[int]int{}
	for _, c := range cs {
		n[c.Batch]++
		if Tuning(c.Batch) && c.Heldout {
			t.Errorf("%s: batch %d is tuning data, yet held out", c.File, c.Batch)
		}
	}
	if n[0] != 42 || n[2] != 15 || n[3] != 16 || n[4] < 16 || n[5] < 32 || n[6] < 16 || n[7] != 16 || n[8] != 16 || n[9] != 16 || n[10] != 16 || n[11] != 16 || n[12] != 16 || n[13] < 9 || n[14] < 6 || n[15] < 7 || n[16] < 3 || n[17] < 3 || n[18] < 9 || n[19] < 8 || n[20] < 4 || len(n) != 20 {
		t.Fatalf("cases per batch %v; want 42 in the first, 15 in batch 2, 16 in batch 3, at least 16 in batch 4, at least 32 in batch 5, at least 16 in batch 6, 16 in batch 7, 16 in batch 8, 16 in batch 9, 16 in batch 10, 16 in batch 11, 16 in batch 12, at least 9 in batch 13, at least 6 in batch 14, at least 7 in batch 15, at least 3 in batch 16, at least 3 in batch 17, at least 9 in batch 18, at least 8 in batch 19, at least 4 in batch 20", n)
	}
}

func TestParseErrors(t *testing.T) {
	good := "id: a-1\nurl: https://github.com/o/r/issues/1\ncause: c\nfix: f\nconfidence: high\nclass: x\nlog: |\n  E0101 a.cpp:1] x\n"
	if _, err := Parse("good.yaml", []byte(good)); err != nil {
		t.Fatal(err)
	}
	for _, b := range []int{2, 3, 4, 7, 10, 11, 12} {
		if c, err := Parse("good2.yaml", []byte(fmt.Sprintf("%sheldout: true\nbatch: %d\n", good, b))); err != nil || c.Batch != b || !c.Heldout {
			t.Fatalf("batch %d: %+v, %v", b, c, err)
		}
	}
	for _, b := range []int{5, 6, 13, 14, 15, 16, 17, 18} {
		if c, err := Parse("good5.yaml", []byte(fmt.Sprintf("%sheldout: false\nbatch: %d\n", good, b))); err != nil || c.Batch != b || c.Heldout {
			t.Fatalf("batch %d: %+v, %v", b, c, err)
		}
	}
	for _, tc := range []struct{ name, in, want string }{
		{"unknown key", good + "extra: 1\n", "field extra not found"},
		{"bad url", strings.Replace(good, "https://github.com/o/r/issues/1", "http://example.com", 1), `bad.yaml:2: url: "http://example.com" is not a GitHub`},
		{"bad confidence", strings.Replace(good, "high", "sure", 1), `bad.yaml:5: confidence: "sure": one of high, medium, low`},
		{"empty log", strings.Replace(good, "log: |\n  E0101 a.cpp:1] x\n", "log: \"\"\n", 1), "bad.yaml:7: log: empty"},
		{"bad id", strings.Replace(good, "a-1", "A 1", 1), `bad.yaml:1: id: "A 1"`},
		{"batch 1", good + "batch: 1\n", "bad.yaml:9: batch: 1: omit it for the first batch, or 2..20"},
		{"batch 21", good + "batch: 21\n", "bad.yaml:9: batch: 21: omit it for the first batch, or 2..20"},
		{"batch 15 held out", good + "heldout: true\nbatch: 15\n", "bad.yaml:10: batch: batch 15 is tuning data as a whole: set heldout: false"},
		{"batch -1", good + "batch: -1\n", "bad.yaml:9: batch: -1: omit it"},
		{"batch 2 tuning", good + "batch: 2\n", "bad.yaml:9: batch: batch 2 is held out as a whole: set heldout: true"},
		{"batch 3 tuning", good + "batch: 3\n", "bad.yaml:9: batch: batch 3 is held out as a whole: set heldout: true"},
		{"batch 4 tuning", good + "batch: 4\n", "bad.yaml:9: batch: batch 4 is held out as a whole: set heldout: true"},
		{"batch 7 tuning", good + "batch: 7\n", "bad.yaml:9: batch: batch 7 is held out as a whole: set heldout: true"},
		{"batch 10 tuning", good + "batch: 10\n", "bad.yaml:9: batch: batch 10 is held out as a whole: set heldout: true"},
		{"batch 11 tuning", good + "batch: 11\n", "bad.yaml:9: batch: batch 11 is held out as a whole: set heldout: true"},
		{"batch 12 tuning", good + "batch: 12\n", "bad.yaml:9: batch: batch 12 is held out as a whole: set heldout: true"},
		{"batch 5 held out", good + "heldout: true\nbatch: 5\n", "bad.yaml:10: batch: batch 5 is tuning data as a whole: set heldout: false"},
		{"batch 6 held out", good + "heldout: true\nbatch: 6\n", "bad.yaml:10: batch: batch 6 is tuning data as a whole: set heldout: false"},
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
