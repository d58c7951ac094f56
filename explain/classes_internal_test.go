package explain

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mooncake-faultlab/faultlab/fieldlogs"
)

// TestReadClassesAcrossFiles: the tables are read in name order into one,
// and a name defined twice across files is refused with both places.
func TestReadClassesAcrossFiles(t *testing.T) {
	table := func(names ...string) *fstest.MapFile {
		var b strings.Builder
		b.WriteString("classes:\n")
		for _, n := range names {
			b.WriteString("  - name: " + n + "\n    cause: c\n    remedy: r\n    patterns: [{re: x, weight: 1}]\n")
		}
		return &fstest.MapFile{Data: []byte(b.String())}
	}
	cls, err := readClasses(fstest.MapFS{"c/b.yaml": table("b1"), "c/a.yaml": table("a1", "a2"), "c/notes.txt": table("x")}, "c")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cls {
		got = append(got, c.Name)
	}
	if strings.Join(got, " ") != "a1 a2 b1" {
		t.Errorf("classes %v, want a1 a2 b1", got)
	}
	_, err = readClasses(fstest.MapFS{"c/a.yaml": table("a1", "dup"), "c/b.yaml": table("dup")}, "c")
	if err == nil || err.Error() != `explain/c/b.yaml:2: class "dup" already defined at explain/c/a.yaml:6` {
		t.Errorf("err %v", err)
	}
	_, err = readClasses(fstest.MapFS{"c/source-te.yaml": table("bare")}, "c")
	if err == nil || !strings.Contains(err.Error(), `explain/c/source-te.yaml:2: class "bare": a class of a source sweep needs examples`) {
		t.Errorf("no examples: err %v", err)
	}
	if _, err := readClasses(fstest.MapFS{}, "c"); err == nil || err.Error() != "explain/c: no class tables" {
		t.Errorf("empty: err %v", err)
	}
}

// TestClassKindOf: a class that is a kind of a wider one answers for it
// (the wider one Explains it, so a log labelled with the wider class is
// right when the narrower is named); the wider class must exist and be
// the widest.
func TestClassKindOf(t *testing.T) {
	table := func(body string) fstest.MapFS {
		return fstest.MapFS{"c/a.yaml": {Data: []byte("classes:\n" + body)}}
	}
	const wide = "  - name: wide\n    cause: c\n    remedy: r\n    patterns: [{re: x, weight: 1}]\n"
	kind := func(name, of string) string {
		return "  - name: " + name + "\n    kind_of: " + of + "\n    cause: c\n    remedy: r\n    patterns: [{re: y, weight: 1}]\n"
	}
	cls, err := readClasses(table(wide+kind("narrow", "wide")), "c")
	if err != nil {
		t.Fatal(err)
	}
	if !cls[0].Explains("narrow") || !cls[0].Explains("wide") || cls[1].Explains("wide") || !sameClass(cls, "wide", "narrow") {
		t.Errorf("wide explains narrow %v, narrow explains wide %v", cls[0].Explains("narrow"), cls[1].Explains("wide"))
	}
	for _, c := range []struct{ body, want string }{
		{kind("narrow", "nothing"), `explain/c/a.yaml:2: class "narrow": kind_of "nothing": no such class`},
		{wide + kind("mid", "wide") + kind("narrow", "mid"), `explain/c/a.yaml:11: class "narrow": kind_of "mid", itself a kind of "wide": name the widest class`},
	} {
		if _, err := readClasses(table(c.body), "c"); err == nil || err.Error() != c.want {
			t.Errorf("err %v, want %s", err, c.want)
		}
	}
}

// TestClassReleases: a class of a bug some releases have is refused a log
// that states another release, or whose source files only exist in others;
// a fixed bug's table needs the range; a bad range is an error with its line.
func TestClassReleases(t *testing.T) {
	c := Class{Mooncake: Range{Since: "0.3.4", Until: "0.3.6.post1"}}
	for _, tc := range []struct {
		version string
		src     Range
		want    bool
	}{
		{"0.3.5", Range{}, true},
		{"0.3.6.post1", Range{}, true},
		{"v0.3.4", Range{}, true},
		{"0.3.7", Range{}, false},
		{"0.3.3.post2", Range{}, false},
		{"0.3.7", Range{Since: "0.3.4"}, false}, // a stated release wins over the files
		{"", Range{}, true},
		{"main", Range{}, true}, // unparsable: unknown
		{"", Range{Since: "0.3.8"}, false},
		{"", Range{Since: "0.3.6"}, true},
		{"", Range{Until: "0.3.3.post2"}, false},
		{"", Range{Until: "0.3.4"}, true},
	} {
		if got := c.InReleases(tc.version, tc.src); got != tc.want {
			t.Errorf("InReleases(%q, %v) = %v, want %v", tc.version, tc.src, got, tc.want)
		}
	}
	if !(Class{}).InReleases("0.3.7", Range{}) {
		t.Error("a class without a range refused a release")
	}
	_, err := readClasses(fstest.MapFS{"c/fixed-te.yaml": {Data: []byte("classes:\n  - name: f\n    cause: c\n    remedy: r\n    patterns: [{re: x, weight: 1}]\n    examples: [x]\n")}}, "c")
	if err == nil || err.Error() != `explain/c/fixed-te.yaml:2: class "f": a fixed bug's class needs mooncake: {since, until} (the releases that have it)` {
		t.Errorf("fixed without a range: err %v", err)
	}
	for yml, want := range map[string]string{
		"mooncake: {until: 0.3}":                 `x.yaml:2: class "f": mooncake: invalid Mooncake version "0.3": want MAJOR.MINOR.PATCH[.postN]`,
		"mooncake: {since: 0.3.7, until: 0.3.6}": `x.yaml:2: class "f": mooncake: since 0.3.7 is after until 0.3.6`,
	} {
		_, err := ParseClasses("x.yaml", []byte("classes:\n  - name: f\n    cause: c\n    remedy: r\n    "+yml+"\n"))
		if err == nil || err.Error() != want {
			t.Errorf("%s: err %v, want %s", yml, err, want)
		}
	}
}

// TestDiagnoseHonoursReleases: the same log names a fixed bug's class when
// it states a release that has the bug and not when it states the fix's.
func TestDiagnoseHonoursReleases(t *testing.T) {
	cls, err := ParseClasses("x.yaml", []byte(`classes:
  - name: fixed-bug
    cause: c
    remedy: r
    mooncake: {until: 0.3.6}
    patterns: [{re: 'frobnicate failed', weight: 6}]
`))
	if err != nil {
		t.Fatal(err)
	}
	for version, want := range map[string]string{"0.3.6": "cause", "0.3.7": "no-fit", "": "cause"} {
		log := "E1201 12:00:00.123456 1 x.cpp:1] frobnicate failed\n"
		if version != "" {
			log = "Name: mooncake-transfer-engine\nVersion: " + version + "\n" + log
		}
		d, err := diagnose(nil, nil, cls, log, "")
		if err != nil {
			t.Fatal(err)
		}
		if d.Verdict != want {
			t.Errorf("stated %q: verdict %s, want %s (%+v)", version, d.Verdict, want, d.Causes)
		}
	}
}

// TestFieldSeenCountsTuningCasesOnly: a class's base rate is the number of
// tuning field cases it is the cause of; no held-out case counts, and a
// scenario a class links shares the class's count.
func TestFieldSeenCountsTuningCasesOnly(t *testing.T) {
	cls, err := Classes()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := fieldlogs.Load()
	if err != nil {
		t.Fatal(err)
	}
	// Parse holds every case of a held-out batch to heldout: true.
	tuning, held := map[string]int{}, map[string]int{}
	for _, c := range cases {
		if c.Heldout {
			held[c.Class]++
		} else {
			tuning[c.Class]++
		}
	}
	total := 0
	for _, c := range cls {
		if c.seen != tuning[c.Name] {
			t.Errorf("%s: seen %d, want %d (its tuning cases)", c.Name, c.seen, tuning[c.Name])
		}
		total += c.seen
	}
	if total == 0 || len(held) == 0 {
		t.Fatalf("seen %d in all, %d held-out classes: the corpus did not load", total, len(held))
	}
	// rdma-transfer-error links io/rdma-work-completion-error (and no
	// other class does).
	if got, want := fieldSeen(cls, "io/rdma-work-completion-error"), tuning["rdma-transfer-error"]+tuning["io/rdma-work-completion-error"]; got != want || got == 0 {
		t.Errorf("fieldSeen(io/rdma-work-completion-error) = %d, want %d", got, want)
	}
}
