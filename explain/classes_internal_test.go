package explain

import (
	"strings"
	"testing"
	"testing/fstest"
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
	if err == nil || !strings.Contains(err.Error(), `explain/c/source-te.yaml:2: class "bare": a class of the source sweep needs examples`) {
		t.Errorf("no examples: err %v", err)
	}
	if _, err := readClasses(fstest.MapFS{}, "c"); err == nil || err.Error() != "explain/c: no class tables" {
		t.Errorf("empty: err %v", err)
	}
}
