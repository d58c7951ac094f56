package explain_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mooncake-faultlab/faultlab/explain"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// The cache gives back what Fingerprint computes; a file that does not
// read back is computed again and rewritten; another catalog is another
// key.
func TestFingerprintCache(t *testing.T) {
	cat, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	cat = cat[:6]
	ctx := context.Background()
	want := explain.Fingerprint(ctx, cat, sim.New(), "")
	c := explain.FingerprintCache{Dir: t.TempDir()}
	files := func() []string {
		fs, _ := filepath.Glob(filepath.Join(c.Dir, "fingerprints", "*.json"))
		return fs
	}
	if got := c.Fingerprint(ctx, cat, sim.New(), ""); !reflect.DeepEqual(got, want) {
		t.Fatal("first call differs from Fingerprint")
	}
	fs := files()
	if len(fs) != 1 {
		t.Fatalf("cache files %v", fs)
	}
	if got := c.Fingerprint(ctx, cat, sim.New(), ""); !reflect.DeepEqual(got, want) {
		t.Fatal("cached call differs from Fingerprint")
	}
	if err := os.WriteFile(fs[0], []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := c.Fingerprint(ctx, cat, sim.New(), ""); !reflect.DeepEqual(got, want) {
		t.Fatal("a corrupt cache file was believed")
	}
	if b, _ := os.ReadFile(fs[0]); string(b) == "{not json" {
		t.Fatal("a corrupt cache file was not rewritten")
	}
	c.Fingerprint(ctx, cat[:5], sim.New(), "")
	c.Fingerprint(ctx, cat, sim.New(), "0.3.9")
	if n := len(files()); n != 3 {
		t.Fatalf("%d cache files for three catalogs × versions, want 3", n)
	}
}
