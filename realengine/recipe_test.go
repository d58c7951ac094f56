package realengine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestRecipeFor(t *testing.T) {
	for _, tc := range []struct {
		version, pkg, flavour string
		imageReady            bool
		wantErr               string
	}{
		{version: "0.3.14", pkg: "mooncake-transfer-engine-cuda13", flavour: "CUDA wheel + CUDA runtime (PyPI) + stub libcuda.so.1", imageReady: true},
		{version: "0.3.13.post1", pkg: Package, flavour: "non-CUDA wheel", imageReady: true},
		{version: "0.3.7.post1", pkg: Package, flavour: "non-CUDA wheel", imageReady: true},
		{version: "0.3.4.post2", pkg: "mooncake-transfer-engine", flavour: "CUDA wheel, loads as it is"},
		{version: "0.3.6.post1", pkg: "mooncake-transfer-engine", flavour: "CUDA wheel, loads as it is"},
		{version: "0.3.5", wantErr: "Mooncake 0.3.5 has no wheel recipe for a CPU-only machine"},
		{version: "0.3.7", wantErr: "of the older CUDA wheels only 0.3.1, 0.3.2, 0.3.2.post1, 0.3.3.post1, 0.3.3.post2, 0.3.4, 0.3.4.post1, 0.3.4.post2, 0.3.6.post1 load here"},
		{version: "x", wantErr: `invalid Mooncake version "x"`},
	} {
		r, err := RecipeFor(tc.version)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("RecipeFor(%s) err = %v, want %q", tc.version, err, tc.wantErr)
			}
			if HasCPUWheel(tc.version) == nil {
				t.Errorf("HasCPUWheel(%s) = nil", tc.version)
			}
			continue
		}
		if err != nil || r.Package != tc.pkg || r.Flavour() != tc.flavour || r.ImageReady() != tc.imageReady || r.Version != tc.version {
			t.Errorf("RecipeFor(%s) = %+v (%s), %v", tc.version, r, r.Flavour(), err)
		}
	}
}

func TestRecipeForBuild(t *testing.T) {
	for _, tc := range []struct {
		b    BuildSpec
		pkg  string
		stub bool
	}{
		{BuildSpec{Name: "b", Wheel: "/x/mooncake_transfer_engine_cuda13-0.3.14-cp311-cp311-manylinux_2_28_x86_64.whl"}, "mooncake-transfer-engine-cuda13", true},
		{BuildSpec{Name: "b", Wheel: "dist/mooncake_transfer_engine_non_cuda-0.3.15.dev1-cp311-cp311-linux_x86_64.whl"}, Package, false},
		{BuildSpec{Name: "0.3.15"}, Package, false},
		{BuildSpec{Name: "0.3.15", Package: "mooncake-transfer-engine-cuda13"}, "mooncake-transfer-engine-cuda13", true},
	} {
		r := recipeForBuild(tc.b)
		if r.Package != tc.pkg || r.StubLibcuda != tc.stub || r.Version != tc.b.Name {
			t.Errorf("recipeForBuild(%+v) = %+v", tc.b, r)
		}
	}
}

// The stub exports every function the 0.3.14 wheel imports and each
// returns CUDA_ERROR_NO_DEVICE.
func TestLibcudaStub(t *testing.T) {
	src := libcudaStubSource()
	if n := strings.Count(src, "() { return 100; }"); n != 32 || len(libcudaStubFuncs) != 32 {
		t.Fatalf("stub defines %d functions (table %d), want 32", n, len(libcudaStubFuncs))
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not installed")
	}
	dir := t.TempDir()
	if err := buildLibcudaStub(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("nm", "-D", "--defined-only", filepath.Join(dir, "libcuda.so.1")).Output()
	if err != nil {
		t.Skipf("nm: %v", err)
	}
	for _, f := range libcudaStubFuncs {
		if !strings.Contains(string(out), " T "+f+"\n") {
			t.Errorf("libcuda.so.1 does not export %s", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "libcuda_stub.c")); err != nil {
		t.Error(err)
	}
}

func TestLatestImageReady(t *testing.T) {
	if got := LatestImageReady(); got != "0.3.14" {
		t.Errorf("LatestImageReady() = %q, want 0.3.14", got)
	}
}

// An image installs what the host's installer does: the non-CUDA wheel as
// it is, 0.3.14's cuda13 wheel with its runtime and the stub libcuda on
// LD_LIBRARY_PATH.
func TestImageWheel(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: the stub libcuda is built with it")
	}
	t.Setenv("FAULTLAB_CACHE", t.TempDir())
	w, err := ImageWheel(context.Background(), "0.3.13.post1")
	if err != nil || w.Package != Package || w.Extra != nil || w.Files != nil || w.LibraryPath != nil {
		t.Errorf("0.3.13.post1: %+v, %v", w, err)
	}
	w, err = ImageWheel(context.Background(), "0.3.14")
	if err != nil {
		t.Fatal(err)
	}
	if w.Package != "mooncake-transfer-engine-cuda13" || strings.Join(w.Extra, " ") != "nvidia-cuda-runtime==13.5.37" ||
		strings.Join(w.LibraryPath, ":") != "/opt/mc-stub:/opt/mc/lib/python3.11/site-packages/nvidia/cu13/lib" {
		t.Errorf("0.3.14: %+v", w)
	}
	if _, err := os.Stat(w.Files["/opt/mc-stub/libcuda.so.1"]); err != nil {
		t.Errorf("0.3.14 stub: %v", err)
	}
	if _, err := ImageWheel(context.Background(), "0.3.4"); err == nil {
		t.Error("0.3.4 (an old CUDA wheel): no error")
	}
}
