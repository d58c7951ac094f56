package suites_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/mooncake"
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
		// Paths as the user can open them: under the directory given.
		rel := func(p string) string { return p }
		Expect(err.Error()).To(Equal(
			rel(b) + `:2:11: mooncake.versions: unknown Mooncake version "0.3.99": known versions are ` + strings.Join(mooncake.Versions, ", ") + "\n" +
				rel(b) + `:4:28: bad duration "5": want a number with a unit, one of ns, us, ms, s, m, h (e.g. 30s, 100ms)` + "\n" +
				rel(a) + `:5:5: faults: master-down "drop": mode must be one of refuse, blackhole` + "\n" +
				rel(a) + `:9:24: bad size "1 gigabyte": want an integer with a unit, one of B, KiB, MiB, GiB, TiB, KB, MB, GB, TB (e.g. 1GiB)`))
	})

	It("validates dies, shares_main, backend and remedy hostpools strictly", func() {
		p := write("c.yaml", `name: c
storage: {backend: embedding}
topology:
  nodes:
    - name: tp0
      hostpool: {shares_main: true, draft: {shares_main: true, layout: MLA}}
steps: [{init: tp0}, {get: {pages: 1}}]
expect: {dies: {signal: SIGTERM}}
by_version:
  "0.3.9": {ok: true, dies: {signal: SIGSEGV}}
remedy:
  hostpools: {tp1: {}}
  expect: {dies: {signal: SIGABRT}, raises: {class: RuntimeError}}
`)
		_, err := scenarios.LoadDir(dir)
		Expect(err).To(HaveOccurred())
		r := p
		Expect(err.Error()).To(Equal(
			r + `:6:17: hostpool.shares_main: only a draft pool can share the main pool (use it under hostpool.draft)` + "\n" +
				r + `:6:44: hostpool.draft: shares_main: true takes no other field (the draft is the main pool's tensors)` + "\n" +
				r + `:6:44: hostpool.draft: storage.backend embedding has no draft pool (its pool is the embedding cpu_pool)` + "\n" +
				r + `:7:22: get: page I/O is not modelled for storage.backend embedding; steps may be init, sleep, health_check, call, put, fetch, te, bench` + "\n" +
				r + `:8:25: expect.dies.signal: "SIGTERM" is not one of SIGSEGV, SIGABRT, SIGFPE` + "\n" +
				r + `:10:12: by_version.0.3.9: ok: true and dies contradict each other` + "\n" +
				r + `:12:20: remedy.hostpools: unknown node "tp1"; nodes: tp0` + "\n" +
				r + `:13:11: remedy.expect: raises and dies contradict each other (a dead process raises nothing)`))
	})

	It("rejects duplicate scenario names across files", func() {
		x := write("x.yaml", "name: dup\nsteps: [{init: tp0}]\nexpect: {ok: true}\n")
		y := write("y.yaml", "name: dup\nsteps: [{init: tp0}]\nexpect: {ok: true}\n")
		_, err := scenarios.LoadDir(dir)
		Expect(err).To(MatchError(y + `:1:1: duplicate scenario name "dup" (also in ` + x + `)`))
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
		count, either := map[string]int{}, 0
		for _, sc := range cat {
			for _, l := range []string{"setup", "standalone", "register", "io", "documented", "container"} {
				if sc.HasLabel(l) {
					count[l]++
				}
			}
			if sc.HasLabel("documented") || sc.HasLabel("container") {
				either++
			}
		}
		Expect(count["setup"]).To(BeNumerically(">=", 11))
		Expect(count["standalone"]).To(BeNumerically(">=", 4))
		Expect(count["register"]).To(BeNumerically(">=", 4))
		Expect(count["io"]).To(BeNumerically(">=", 3))
		// Every scenario is a documented failure or a container-only one
		// (found on real in containers, docs/REAL-FINDINGS.md).
		Expect(either).To(Equal(len(cat)))
		Expect(count["container"]).To(BeNumerically(">=", 2))
	})
})
