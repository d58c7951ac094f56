package explore

import (
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// KnobDraw is one knob value the generator wrote into a scenario, with its
// class in the knob table's samples (valid, boundary, invalid).
type KnobDraw struct{ Knob, Class, Value string }

// sglangKey is the config-dict key SGLang reads a MOONCAKE_* knob from
// (written as env, config file or extra_config by writeConfig).
var sglangKey = func() map[string]string {
	m := map[string]string{}
	for k, env := range envName {
		m[env] = k
	}
	return m
}()

// vary draws the configuration the older generator held fixed, from its
// own stream (seed ‖ "vary") so every earlier draw of a seed is unchanged:
// knobs of mooncake.Knobs at valid, boundary and invalid values; storage
// with tp_size > 1; etcd metadata and an HA master pair; a second RNIC;
// faults anchored to a step (after:).
func (g *gen) vary(seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0x76617279)) // "vary"
	if g.cfg["client_server_address"] == "{{client}}" {
		// topology() drew the sidecar's address: a valid MOONCAKE_CLIENT.
		g.d.Knobs = append(g.d.Knobs, KnobDraw{Knob: "MOONCAKE_CLIENT", Class: "valid", Value: "{{client}}"})
	}
	g.knobs(r)
	if r.Float64() < 0.1 {
		size := []int{2, 4, 8}[r.IntN(3)]
		g.d.Storage = &DocStore{TPSize: size, TPRank: r.IntN(size)}
	}
	t := &g.d.Topology
	if !g.opts.Wall && (t.Metadata == "http" || t.Metadata == "master") && r.Float64() < 0.15 {
		// etcd holds the same metadata; process faults on "metadata"
		// stay valid (etcd is a metadata server the harness runs).
		t.Metadata = "etcd"
		if g.ver.AtLeast("0.3.3") && t.Client == nil && r.Float64() < 0.4 && !g.targets("master") && !g.drew("MOONCAKE_MASTER") {
			if t.Master == nil {
				t.Master = &DocMaster{}
			}
			t.Master.HA = true
			g.cfg["master_server_address"] = "etcd://{{etcd}}"
			g.d.Knobs = append(g.d.Knobs, KnobDraw{Knob: "MOONCAKE_MASTER", Class: "boundary", Value: "etcd://{{etcd}}"})
		}
	}
	for i := range t.Nodes {
		if n := t.Nodes[i].NIC; n != nil && len(n.RDMA) == 1 && r.Float64() < 0.3 {
			n.RDMA = append(n.RDMA, DocRNIC{Name: "mlx5_1"})
		}
	}
	// after: — only on sim-time runs: a wall engine's step durations
	// already shift the faults (sleepMidpoints).
	if !g.opts.Wall && len(g.d.Steps) > 1 {
		for i := range g.d.Faults {
			if r.Float64() < 0.25 {
				f := &g.d.Faults[i]
				f.After = "step " + strconv.Itoa(1+r.IntN(len(g.d.Steps)))
				f.At = strconv.Itoa(r.IntN(5)) + "s"
			}
		}
	}
}

// drew reports whether knob k was drawn for this scenario.
func (g *gen) drew(k string) bool {
	for _, d := range g.d.Knobs {
		if d.Knob == k {
			return true
		}
	}
	return false
}

// targets reports whether a fault already acts on party p.
func (g *gen) targets(p string) bool {
	for _, f := range g.d.Faults {
		if f.Target == p || (p == "master" && faults.Fault{Kind: faults.Kind(f.Kind), Target: f.Target}.LinkTarget() == "master") {
			return true
		}
	}
	return false
}

// knobs draws 0–3 knobs of the table, each at a value of a class drawn
// uniformly, so every knob is drawn in every class within a few thousand
// seeds (TestGeneratorCoversKnobTable).
//
// With GenOptions.Config every scenario carries 1–3 draws: the skip draw is
// still made (a seed's other draws stay those of the unweighted generator)
// but ignored, and a knob with no usable value, or one already drawn
// (MOONCAKE_CLIENT, which the topology's sidecar draws), is redrawn.
func (g *gen) knobs(r *rand.Rand) {
	if r.Float64() < 0.4 && !g.opts.Config {
		return
	}
	n := 1 + r.IntN(3)
	tries := n
	if g.opts.Config {
		tries += 20 // redraws for knobs with no usable value
	}
	for drawn := 0; drawn < n && tries > 0; tries-- {
		if !g.opts.Config {
			drawn++ // unweighted: a knob with no usable value is a lost draw
		}
		k := mooncake.Knobs[r.IntN(len(mooncake.Knobs))]
		class := mooncake.ValueClasses[r.IntN(len(mooncake.ValueClasses))]
		if g.opts.Config && g.drew(k.Name) {
			continue // a second draw of one knob overwrites the first: redraw
		}
		var vals []string
		for _, v := range k.Samples[class] {
			if g.usable(k, v) {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			continue
		}
		v := vals[r.IntN(len(vals))]
		switch k.Scope {
		case mooncake.ScopeMasterFlag:
			t := &g.d.Topology
			if t.Master == nil {
				t.Master = &DocMaster{}
			}
			if t.Master.Flags == nil {
				t.Master.Flags = map[string]string{}
			}
			t.Master.Flags[k.Name] = v
		case mooncake.ScopeSGLang:
			if key, ok := sglangKey[k.Name]; ok {
				g.cfg[key] = v
			} else {
				g.cfg[k.Name] = v // read from the env only (MOONCAKE_CHECK_SERVER…)
			}
		default:
			g.cfg[k.Name] = v
		}
		g.d.Knobs = append(g.d.Knobs, KnobDraw{Knob: k.Name, Class: class, Value: v})
		if g.opts.Config {
			drawn++
		}
	}
}

// usable: a value this scenario can carry — templates its topology
// provides; on wall engines no value that costs real minutes or memory,
// and not the timeouts and retries the wall generator fixed.
func (g *gen) usable(k mooncake.Knob, v string) bool {
	t := g.d.Topology
	if k.Scope == mooncake.ScopeMasterFlag && !k.ReadAt(g.ver) {
		return false // gflags: an unknown flag is fatal; nothing to learn
	}
	switch {
	case strings.Contains(v, "{{client}}"):
		return t.Client != nil
	case strings.Contains(v, "{{etcd}}"):
		return false // an HA master pair is drawn in vary, not by a knob
	case strings.Contains(v, "{{metadata}}"):
		return t.Metadata == "http" || t.Metadata == "master"
	}
	if k.Name == "MOONCAKE_MASTER" {
		if _, standalone := g.cfg["standalone_storage"]; standalone {
			return false // the dummy client's master is mooncake_client's
		}
	}
	if !g.opts.Wall {
		return true
	}
	switch k.Name {
	case "MC_RPC_TIMEOUT_MS", "MC_RPC_CONNECT_TIMEOUT_MS", "MC_STORE_CLIENT_SETUP_RETRIES", "MC_STORE_USE_HUGEPAGE":
		return false
	case "MOONCAKE_GLOBAL_SEGMENT_SIZE":
		return v != "4gb" && v != "64gb" && v != "1gb"
	case "MOONCAKE_PROTOCOL", "MOONCAKE_DEVICE":
		return false // wall runs have no RDMA hardware
	case "MC_LOG_DIR":
		// Real: glog then writes files and stderr keeps ERROR only, and a
		// process importing both modules aborts (REAL-FINDINGS §98); the
		// model does neither.
		return false
	}
	return true
}

// Coverage counts, per knob and value class, how many generated scenarios
// drew it (`faultlab explore --coverage`).
type Coverage struct {
	Seeds  uint64                    `json:"seeds"`
	Counts map[string]map[string]int `json:"counts"` // knob → class → scenarios
	// Missing lists "knob/class" pairs never drawn, in table order.
	Missing []string `json:"missing"`
}

// KnobCoverage generates seeds [start, start+n) and counts their draws.
func KnobCoverage(start, n uint64, opts GenOptions) Coverage {
	c := Coverage{Seeds: n, Counts: map[string]map[string]int{}}
	for _, k := range mooncake.Knobs {
		c.Counts[k.Name] = map[string]int{}
	}
	for s := start; s < start+n; s++ {
		seen := map[KnobDraw]bool{}
		for _, d := range Generate(s, opts).Knobs {
			key := KnobDraw{Knob: d.Knob, Class: d.Class}
			if !seen[key] {
				seen[key] = true
				c.Counts[d.Knob][d.Class]++
			}
		}
	}
	for _, k := range mooncake.Knobs {
		for _, cl := range mooncake.ValueClasses {
			if c.Counts[k.Name][cl] == 0 {
				c.Missing = append(c.Missing, k.Name+"/"+cl)
			}
		}
	}
	return c
}
