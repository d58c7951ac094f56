package explore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// DefaultCorpus is where minimal failing scenarios go.
const DefaultCorpus = "scenarios/regressions"

// CorpusName is the file (and scenario) name of a finding.
func CorpusName(f Finding) string {
	return fmt.Sprintf("%s-%s-seed-%d", f.Kind, f.Invariant, f.Seed)
}

// WriteCorpus writes the (shrunk) doc of a finding into dir, with its
// seed, broken invariant and the command that reproduces it. A divergence
// from a wall engine also records what that engine observed as the
// scenario's expectation (real is the truth), so `faultlab run` on sim
// fails until the model agrees. Returns the file path.
func WriteCorpus(dir string, d *Doc, f Finding, engs []engine.Engine) (string, error) {
	d = d.Clone()
	name := CorpusName(f)
	d.Name = "regressions/" + name
	d.Labels = appendUnique(d.Labels, "regression", f.Kind)
	if f.Kind == KindDivergence && len(engs) == 2 {
		if err := expectFrom(d, engs[1], f.Seed); err != nil {
			return "", err
		}
		d.Engines = []string{engs[0].Name(), engs[1].Name()}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("corpus: %w", err)
	}
	path := filepath.Join(dir, name+".yaml")
	var hdr strings.Builder
	fmt.Fprintf(&hdr, "# Found by faultlab explore (seed %d, Mooncake %s, engine %s).\n", f.Seed, f.Version, f.Engine)
	fmt.Fprintf(&hdr, "# kind: %s  invariant: %s\n", f.Kind, f.Invariant)
	for _, l := range wrap(f.Reason, 100) {
		fmt.Fprintf(&hdr, "# %s\n", l)
	}
	fmt.Fprintf(&hdr, "# reproduce: faultlab run %s --engine %s --seed %d -v\n", path, engineList(engs), f.Seed)
	fmt.Fprintf(&hdr, "# regenerate the unshrunk scenario: faultlab explore --seed %d --seeds 1 --engine %s\n", f.Seed, engineList(engs))
	data := append([]byte(hdr.String()), d.Marshal()...)
	if _, err := scenarios.Parse(path, data); err != nil {
		return "", fmt.Errorf("corpus: %s does not load: %w", path, err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", fmt.Errorf("corpus: %w", err)
	}
	return path, nil
}

// expectFrom runs the doc on eng and writes its observation (exception or
// ok, return codes, death) into the doc's expectations.
func expectFrom(d *Doc, eng engine.Engine, seed uint64) error {
	sc, err := d.Scenario()
	if err != nil {
		return err
	}
	r := scenarios.RunVersion(context.Background(), sc, eng, d.Mooncake.Versions[0], scenarios.Options{Seed: seed})
	if r.Verdict != scenarios.Pass {
		return fmt.Errorf("corpus: %s on %s: %s %s", d.Name, eng.Name(), r.Verdict, r.Reason)
	}
	d.Expect = observedExpect(r.Observed, r.Addrs)
	if d.Remedy != nil && r.Remedy != nil {
		d.Remedy.Expect = observedExpect(*r.Remedy, r.Addrs)
	}
	return nil
}

func observedExpect(o scenarios.Observed, addrs map[string]string) DocExpect {
	e := DocExpect{Invariants: true, Codes: map[string]any{}}
	switch {
	case o.Died != nil:
		e.Dies = map[string]string{"signal": o.Died.Signal}
	case o.Exception != nil:
		e.Raises = &DocRaises{Class: o.Exception.Class, Message: placeholders(o.Exception.Message, addrs)}
	default:
		t := true
		e.OK = &t
	}
	for _, m := range scenarios.Methods {
		if cs := o.CodesOf(m); len(cs) > 0 {
			e.Codes[m] = cs
		}
	}
	if len(e.Codes) == 0 {
		e.Codes = nil
	}
	return e
}

// placeholders puts {{master}} etc. back where a message quotes a world address.
func placeholders(s string, addrs map[string]string) string {
	for _, role := range []string{"metadata", "master_metrics", "master", "client"} {
		if a := addrs[role]; !scenarios.LiteralAddr(a) {
			s = strings.ReplaceAll(s, a, "{{"+role+"}}")
		}
	}
	return s
}

func engineList(engs []engine.Engine) string {
	var n []string
	for _, e := range engs {
		n = append(n, e.Name())
	}
	if len(n) == 0 {
		return engine.Model()
	}
	return strings.Join(n, ",")
}

func appendUnique(xs []string, add ...string) []string {
	for _, a := range add {
		found := false
		for _, x := range xs {
			found = found || x == a
		}
		if !found {
			xs = append(xs, a)
		}
	}
	return xs
}

func wrap(s string, w int) []string {
	var out []string
	for len(s) > w {
		i := strings.LastIndex(s[:w], " ")
		if i <= 0 {
			i = w
		}
		out = append(out, s[:i])
		s = strings.TrimSpace(s[i:])
	}
	return append(out, s)
}
