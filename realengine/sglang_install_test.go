package realengine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/sglang"
)

// The SGLang installer's refusals and idempotence, without PyPI.
var _ = Describe("InstallSGLang", func() {
	var cache string
	BeforeEach(func() { cache = GinkgoT().TempDir() })

	It("pins every release the model follows", func() {
		Expect(realengine.SGLangVersions()).To(Equal([]string{sglang.LatestVersion, sglang.OldestVersion}))
		Expect(realengine.LatestSGLang()).To(Equal(sglang.LatestVersion))
	})

	It("refuses an unknown release and names the installable ones, changing nothing", func(ctx SpecContext) {
		err := realengine.InstallSGLang(ctx, []string{"0.4.0"}, realengine.InstallOptions{CacheDir: cache})
		Expect(err).To(MatchError("real SGLang install: SGLang 0.4.0: no pinned requirements (installable: 0.5.23, 0.5.17)"))
		Expect(os.ReadDir(cache)).To(BeEmpty())
	})

	It("leaves an installed release alone", func(ctx SpecContext) {
		l, err := realengine.SGLangLayoutFor(cache, "0.5.23")
		Expect(err).NotTo(HaveOccurred())
		Expect(os.MkdirAll(filepath.Dir(l.Python()), 0o755)).To(Succeed())
		Expect(os.WriteFile(l.Python(), nil, 0o755)).To(Succeed())
		Expect(os.WriteFile(l.Marker(), []byte(`{"package":"sglang","version":"0.5.23"}`), 0o644)).To(Succeed())
		// A Python that cannot run proves nothing was rebuilt.
		Expect(realengine.InstallSGLang(ctx, []string{"0.5.23"}, realengine.InstallOptions{CacheDir: cache, Python: "/nonexistent/python3"})).To(Succeed())
		Expect((&realengine.SGLang{Version: "0.5.23", CacheDir: cache}).Available()).To(Succeed())
	})

	It("leaves no half-made venv behind when an install fails", func(ctx SpecContext) {
		err := realengine.InstallSGLang(ctx, []string{"0.5.17"}, realengine.InstallOptions{CacheDir: cache, Python: "/nonexistent/python3"})
		Expect(err).To(MatchError(ContainSubstring("/nonexistent/python3 not usable")))
		Expect(filepath.Join(cache, "sglang", "0.5.17")).NotTo(BeADirectory())
	})

	It("says what to run when a release is not installed", func() {
		err := (&realengine.SGLang{Version: "0.5.17", CacheDir: cache}).Available()
		Expect(err).To(MatchError("real SGLang 0.5.17 not installed in " + filepath.Join(cache, "sglang", "0.5.17") +
			"; run `make real-engine` (or `faultlab install sglang --versions 0.5.17`)"))
	})

	It("refuses to start outside the real engine", func(ctx SpecContext) {
		_, err := (&realengine.SGLang{CacheDir: cache}).Start(context.Background(), sglang.Launch{})
		Expect(err).To(MatchError("unsupported: real SGLang runs on the real engine only (--engine real)"))
	})
})

var _ = Describe("disk space", func() {
	It("refuses with the free space and where to point the cache", func() {
		err := realengine.CheckDisk(GinkgoT().TempDir(), 1<<62)
		Expect(err).To(HaveOccurred())
		Expect(strings.Contains(err.Error(), "not enough disk space in ")).To(BeTrue(), err.Error())
		Expect(err.Error()).To(ContainSubstring("set $FAULTLAB_CACHE to a larger file system"))
	})
})
