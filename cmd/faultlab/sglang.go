package main

import (
	"fmt"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/sglang"
)

// sglangSideNames are the --sglang choices: the Go model, SGLang's own code.
var sglangSideNames = []string{sglang.ModelSide, realengine.SGLangSide}

// buildSides parses --sglang ("model", "real" or "model,real") and
// --sglang-version. Real SGLang needs engines whose worlds host it
// (engine.RealSGLang: its processes run in real worlds) and an installed
// venv; both are checked before anything runs.
func buildSides(list, version, checkout string, engs []engine.Engine) ([]sglang.Side, error) {
	var out []sglang.Side
	seen := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		switch n {
		case sglang.ModelSide:
			if version != "" && !sglang.Follows(version) {
				return nil, fmt.Errorf("--sglang-version %s: the model follows %s (and %s for the scenarios that name them)", version, strings.Join(sglang.Versions, ", "), strings.Join(sglang.NamedVersions, ", "))
			}
			out = append(out, sglang.Model{Version: version})
		case realengine.SGLangSide:
			for _, e := range engs {
				if !engine.CapsOf(e.Name()).Has(engine.RealSGLang) {
					return nil, fmt.Errorf("--sglang real runs SGLang's own code in real worlds only: use --engine %s (not %s)", strings.Join(engine.NamesWith(engine.RealSGLang), ","), e.Name())
				}
			}
			s := &realengine.SGLang{Version: version, Checkout: checkout}
			if err := s.Available(); err != nil {
				return nil, fmt.Errorf("--sglang real: %w", err)
			}
			out = append(out, s)
		default:
			return nil, fmt.Errorf("unknown --sglang %q: valid choices are %s", n, strings.Join(sglangSideNames, ", "))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no --sglang given: valid choices are %s", strings.Join(sglangSideNames, ", "))
	}
	return out, nil
}
