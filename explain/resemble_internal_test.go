package explain

import (
	"slices"
	"testing"
)

// resemble fills a no-fit's nearest from the words a log shares with the
// classes' known lines; it never makes a cause, and one shared word is no
// resemblance.
func TestResemble(t *testing.T) {
	// Classes of other words, so that a word's rarity is as in a real
	// table (a word two classes of two share is common).
	filler := ""
	for _, w := range []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"} {
		filler += "\n  - {name: " + w + ", cause: c., remedy: r., patterns: [{re: '" + w + " master segment mount', weight: 5}]}"
	}
	cls, err := ParseClasses("test.yaml", []byte(`
classes:`+filler+`
  - name: qp-destroyed-race
    cause: QPs destroyed while posting.
    remedy: Upgrade.
    patterns:
      - {re: 'ibv_post_send on a destroyed queue pair', weight: 5}
      - {re: 'RdmaEndPoint::destroyQP', weight: 5}
  - name: bucket-duplicate
    cause: A key put twice into buckets.
    remedy: Upgrade.
    patterns:
      - {re: 'Duplicate key in bucket storage backend', weight: 5}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, log string
		verdict   string
		causes    []string
		nearest   []string
	}{
		{"words of one class's lines, none of its patterns",
			"E1201 10:00:00.000000 1 rdma_endpoint.cpp:9] Failed to post send: queue pair destroyed\n",
			"no-fit", nil, []string{"qp-destroyed-race"}},
		{"one shared word is no resemblance",
			"E1201 10:00:00.000000 1 x.cpp:9] bucket is full\n",
			"no-fit", nil, nil},
		{"no error line: nothing to resemble",
			"I1201 10:00:00.000000 1 x.cpp:9] queue pair destroyed while posting\n",
			"no-fit", nil, nil},
		{"a class's own line: a cause, and no resemblance beside it",
			"E1201 10:00:00.000000 1 x.cpp:9] Duplicate key in bucket storage backend\n",
			"cause", []string{"bucket-duplicate"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := diagnose(nil, Fingerprints{}, cls, tc.log, "")
			if err != nil {
				t.Fatal(err)
			}
			names := func(cs []Cause) (out []string) {
				for _, c := range cs {
					out = append(out, c.Name)
				}
				return out
			}
			if d.Verdict != tc.verdict || !slices.Equal(names(d.Causes), tc.causes) || !slices.Equal(names(d.Nearest), tc.nearest) {
				t.Fatalf("verdict %s, causes %v, nearest %v; want %s, %v, %v", d.Verdict, names(d.Causes), names(d.Nearest), tc.verdict, tc.causes, tc.nearest)
			}
			for _, c := range d.Nearest {
				if !c.Resembles || c.Points != 0 || len(c.Evidence) != 1 {
					t.Errorf("nearest %s: resembles %v, points %v, evidence %q", c.Name, c.Resembles, c.Points, c.Evidence)
				}
			}
			for _, c := range d.Causes {
				if c.Resembles {
					t.Errorf("cause %s marked as resembling", c.Name)
				}
			}
		})
	}
	// An ambiguous group can fill Nearest past three: no room, no panic.
	_, ev := readLog("E1201 10:00:00.000000 1 rdma_endpoint.cpp:9] Failed to post send: queue pair destroyed\n")
	if got := resemble(cls, ev.Lines, nil, func(string) bool { return false }, -1); got != nil {
		t.Errorf("resemble with no room: %v", got)
	}
}
