package suites_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/scenarios"
)

var _ = Describe("scenario loader", Label("loader"), func() {
	var dir string
	BeforeEach(func() {
		dir = GinkgoT().TempDir() // removed after the spec, also on failure
	})
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		Expect(os.MkdirAll(filepath.Dir(p), 0o755)).To(Succeed())
		Expect(os.WriteFile(p, []byte(body), 0o644)).To(Succeed())
		return p
	}

	It("reports every problem of every file at once, with file:line:col", func() {
		a := write("setup/a.yaml", `name: setup/a
steps:
  - init: tp0
faults:
  - {at: 0s, kind: master-down, mode: drop}
topology:
  nodes:
    - name: tp0
      hostpool: {size: 1 gigabyte}
expect:
  ok: true
`)
		b := write("register/b.yaml", `name: register/b
mooncake: {versions: ["0.3.99"]}
steps: [{init: tp0}]
expect: {ok: true, within: 5}
`)
		_, err := scenarios.LoadDir(dir)
		var le *scenarios.LoadError
		Expect(err).To(BeAssignableToTypeOf(le))
		rel := func(p string) string { r, _ := filepath.Rel(dir, p); return r }
		Expect(err.Error()).To(Equal(
			rel(b) + `:2:11: mooncake.versions: unknown Mooncake version "0.3.99": known versions are 0.3.0, 0.3.1, 0.3.2, 0.3.2.post1, 0.3.3, 0.3.3.post1, 0.3.3.post2, 0.3.4, 0.3.4.post1, 0.3.4.post2, 0.3.5, 0.3.6, 0.3.6.post1, 0.3.7, 0.3.7.post1, 0.3.7.post2, 0.3.8, 0.3.8.post1, 0.3.9, 0.3.10, 0.3.10.post1, 0.3.10.post2, 0.3.11, 0.3.11.post1, 0.3.12, 0.3.12.post1, 0.3.13, 0.3.13.post1` + "\n" +
				rel(b) + `:4:28: bad duration "5": want a number with a unit, one of ns, us, ms, s, m, h (e.g. 30s, 100ms)` + "\n" +
				rel(a) + `:5:5: faults: master-down "drop": mode must be one of refuse, blackhole` + "\n" +
				rel(a) + `:9:24: bad size "1 gigabyte": want an integer with a unit, one of B, KiB, MiB, GiB, TiB, KB, MB, GB, TB (e.g. 1GiB)`))
	})

	It("rejects duplicate scenario names across files", func() {
		write("x.yaml", "name: dup\nsteps: [{init: tp0}]\nexpect: {ok: true}\n")
		write("y.yaml", "name: dup\nsteps: [{init: tp0}]\nexpect: {ok: true}\n")
		_, err := scenarios.LoadDir(dir)
		Expect(err).To(MatchError(`y.yaml:1:1: duplicate scenario name "dup" (also in x.yaml)`))
	})

	It("loads a scenario file from anywhere by path", func() {
		p := write("elsewhere/mine.yaml", "name: mine/ok\nsteps: [{init: tp0}]\nexpect: {ok: true}\n")
		cat, err := scenarios.Catalog()
		Expect(err).NotTo(HaveOccurred())
		scs, err := scenarios.Resolve(cat, []string{p})
		Expect(err).NotTo(HaveOccurred())
		Expect(scs).To(HaveLen(1))
		Expect(scs[0].Name).To(Equal("mine/ok"))
		Expect(scs[0].Source).To(Equal(p))
	})

	It("names the catalog when a scenario is unknown", func() {
		cat, err := scenarios.Catalog()
		Expect(err).NotTo(HaveOccurred())
		_, err = scenarios.Resolve(cat, []string{"setup/nope"})
		Expect(err).To(MatchError(`no scenario named "setup/nope" in the catalog (see ` + "`faultlab list`" + `), and no such file`))
	})

	It("covers every catalog category", func() {
		cat, err := scenarios.Catalog()
		Expect(err).NotTo(HaveOccurred())
		count := map[string]int{}
		for _, sc := range cat {
			for _, l := range []string{"setup", "standalone", "register", "io", "documented"} {
				if sc.HasLabel(l) {
					count[l]++
				}
			}
		}
		Expect(count["setup"]).To(BeNumerically(">=", 11))
		Expect(count["standalone"]).To(BeNumerically(">=", 4))
		Expect(count["register"]).To(BeNumerically(">=", 4))
		Expect(count["io"]).To(BeNumerically(">=", 3))
		Expect(count["documented"]).To(Equal(len(cat)))
	})
})
