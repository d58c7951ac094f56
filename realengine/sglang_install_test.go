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
		Expect(realengine.SGLangVersions()).To(Equal([]string{sglang.LatestVersion, sglang.OldestVersion, "0.5.16", "0.5.14"}))
		Expect(sglang.NamedVersions).To(Equal([]string{"0.5.14", "0.5.16"}))
		Expect(realengine.LatestSGLang()).To(Equal(sglang.LatestVersion))
	})

	It("refuses an unknown release and names the installable ones, changing nothing", func(ctx SpecContext) {
		err := realengine.InstallSGLang(ctx, []string{"0.4.0"}, realengine.InstallOptions{CacheDir: cache})
		Expect(err).To(MatchError("real SGLang install: SGLang 0.4.0: no pinned requirements (installable: 0.5.23, 0.5.17, 0.5.16, 0.5.14)"))
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

	It("installs the base release first and then refuses the sharing one, leaving neither", func(ctx SpecContext) {
		err := realengine.InstallSGLang(ctx, []string{"0.5.14"}, realengine.InstallOptions{CacheDir: cache, Python: "/nonexistent/python3"})
		Expect(err).To(MatchError(ContainSubstring("/nonexistent/python3 not usable")))
		Expect(err).To(MatchError(ContainSubstring("real SGLang install 0.5.14: it takes torch from SGLang 0.5.17's venv: real SGLang 0.5.17 not installed in " +
			filepath.Join(cache, "sglang", "0.5.17"))))
		Expect(filepath.Join(cache, "sglang", "0.5.17")).NotTo(BeADirectory())
		Expect(filepath.Join(cache, "sglang", "0.5.14")).NotTo(BeADirectory())
	})

	It("says a sharing release is unusable while its base is missing", func() {
		l, err := realengine.SGLangLayoutFor(cache, "0.5.14")
		Expect(err).NotTo(HaveOccurred())
		Expect(os.MkdirAll(filepath.Dir(l.Python()), 0o755)).To(Succeed())
		Expect(os.WriteFile(l.Python(), nil, 0o755)).To(Succeed())
		Expect(os.WriteFile(l.Marker(), []byte(`{"package":"sglang","version":"0.5.14","base":"0.5.17","shared":21}`), 0o644)).To(Succeed())
		err = (&realengine.SGLang{Version: "0.5.14", CacheDir: cache}).Available()
		Expect(err).To(MatchError("real SGLang 0.5.14 takes torch from SGLang 0.5.17's venv: real SGLang 0.5.17 not installed in " +
			filepath.Join(cache, "sglang", "0.5.17") + "; run `make real-engine` (or `faultlab install sglang --versions 0.5.17`)"))
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

// The pinned files: a release with a base installs only what differs and
// reads the heavy packages pinned alike from the base's venv.
var _ = Describe("SGLang pinned requirements", func() {
	It("shares torch, triton and the CUDA wheels of 0.5.17 with 0.5.14 and 0.5.16", func() {
		for _, v := range []string{"0.5.14", "0.5.16"} {
			sh, err := realengine.SGLangShareOf(v)
			Expect(err).NotTo(HaveOccurred())
			Expect(sh.Base).To(Equal("0.5.17"))
			Expect(sh.Pins).To(HaveLen(128))
			Expect(sh.Pins).To(ContainElement("sglang==" + v))
			Expect(sh.Shared).To(Equal([]string{
				"cuda-bindings==13.5.0", "cuda-pathfinder==1.9.1", "cuda-toolkit==13.0.2",
				"nvidia-cublas==13.1.0.3", "nvidia-cuda-cupti==13.0.85", "nvidia-cuda-nvrtc==13.0.88",
				"nvidia-cuda-runtime==13.0.96", "nvidia-cudnn-cu13==9.19.0.56", "nvidia-cufft==12.0.0.61",
				"nvidia-cufile==1.15.1.6", "nvidia-curand==10.4.0.35", "nvidia-cusolver==12.0.4.66",
				"nvidia-cusparse==12.6.3.3", "nvidia-cusparselt-cu13==0.8.0", "nvidia-ml-py==13.615.71",
				"nvidia-nccl-cu13==2.28.9", "nvidia-nvjitlink==13.0.88", "nvidia-nvshmem-cu13==3.4.5",
				"nvidia-nvtx==13.0.85", "torch==2.11.0", "torchvision==0.26.0", "triton==3.6.0"}))
			own := string(sh.Own)
			Expect(own).To(ContainSubstring("\nsglang==" + v + "\n"))
			Expect(own).NotTo(ContainSubstring("\ntorch=="))
			Expect(own).NotTo(ContainSubstring("\nnvidia-"))
			Expect(own).To(ContainSubstring("\nxgrammar==0.2.1\n")) // the release's METADATA pin, 0.5.17's file has 0.2.9
		}
		sh, err := realengine.SGLangShareOf("0.5.14")
		Expect(err).NotTo(HaveOccurred())
		Expect(sh.Pins).To(ContainElements("transformers==5.8.1", "apache-tvm-ffi==0.1.9"))
	})

	It("installs 0.5.17 and 0.5.23 whole", func() {
		for _, v := range []string{"0.5.17", "0.5.23"} {
			sh, err := realengine.SGLangShareOf(v)
			Expect(err).NotTo(HaveOccurred())
			Expect(sh.Base).To(BeEmpty())
			Expect(sh.Shared).To(BeEmpty())
			Expect(string(sh.Own)).To(ContainSubstring("\ntorch=="))
		}
	})

	It("names the file and line of a line that is not name==version", func() {
		_, err := realengine.ParsePins("x.txt", []byte("# c\n\ntorch==2.11.0\nnumpy>=2\n"))
		Expect(err).To(MatchError(`x.txt:4: "numpy>=2" is not name==version`))
		_, err = realengine.ParsePins("x.txt", []byte("a==1; python_version<'3.12'\n"))
		Expect(err).To(MatchError(`x.txt:1: "a==1; python_version<'3.12'" is not name==version`))
		pins, err := realengine.ParsePins("x.txt", []byte("Jinja2==3.1.6\ntyping_extensions==4.16.0\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(pins).To(Equal(map[string]string{"jinja2": "3.1.6", "typing-extensions": "4.16.0"}))
	})
})
