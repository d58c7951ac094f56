package sourcecov

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestGoLiterals(t *testing.T) {
	src := "package p\n// \"in a comment\"\nvar a = \"Failed to connect to %s\"\nvar b = `raw literal`\nvar c = \"  \"\nvar d = 'x'\nvar e = \"tab\\tinside\"\n"
	have, err := GoLiterals("p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Failed to connect to %s", "raw literal", "tab\tinside"}; !reflect.DeepEqual(have, want) {
		t.Errorf("GoLiterals = %q, want %q", have, want)
	}
	if _, err := GoLiterals("bad.go", []byte("package p\nvar s = \"unterminated\n")); err == nil {
		t.Error("GoLiterals of an unterminated literal: no error")
	}
}

func TestModelLiterals(t *testing.T) {
	root := t.TempDir()
	for path, src := range map[string]string{
		"models/a/a.go":      `package a; var s = "from models"`,
		"models/a/a_test.go": `package a; var t = "from a test"`,
		"sim/s.go":           `package sim; var s = "from sim"`,
		"sim/testdata/x.go":  `package x; var s = "from testdata"`,
		"fakeengine/f.go":    `package f; var s = "from fakeengine"`,
		"mooncake/k.go":      `package mooncake; var s = "from mooncake"`,
		"mooncake/notes.txt": `"not Go"`,
		"realengine/r.go":    `package r; var s = "from realengine"`,
	} {
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lits, files, err := ModelLiterals(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"from models", "from sim", "from fakeengine", "from mooncake"}; !reflect.DeepEqual(lits, want) || files != 4 {
		t.Errorf("ModelLiterals = %q from %d files, want %q from 4", lits, files, want)
	}
	if _, _, err := ModelLiterals(filepath.Join(root, "models")); err == nil {
		t.Error("ModelLiterals of a directory without models/: no error")
	}
}
