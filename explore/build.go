package explore

import (
	"errors"
	"fmt"

	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// errNotBuilt: the doc holds what build does not convert (a corpus
// finding's codes or dies, a step that is not exactly one action); it
// goes through the loader instead.
var errNotBuilt = errors.New("explore: doc needs the loader")

// build converts the doc straight into a scenario, as the loader would
// decode its YAML (TestBuildMatchesLoader holds the two equal), without
// the YAML round trip: yaml.v3's parser was the largest single cost of a
// generated run. The caller validates it with scenarios.Validate.
func (d *Doc) build() (*scenarios.Scenario, error) {
	var errs []error
	size := func(s string) scenarios.ByteSize {
		if s == "" {
			return 0
		}
		n, err := scenarios.ParseByteSize(s)
		errs = append(errs, err)
		return scenarios.ByteSize(n)
	}
	dur := func(s string) scenarios.Duration {
		if s == "" {
			return 0
		}
		v, err := scenarios.ParseDuration(s)
		errs = append(errs, err)
		return v
	}
	sc := &scenarios.Scenario{
		Name: d.Name, Summary: d.Summary, Refs: d.Refs, Labels: d.Labels, Engines: d.Engines,
		Mooncake: scenarios.Mooncake{Versions: d.Mooncake.Versions},
		Topology: scenarios.Topology{Metadata: d.Topology.Metadata},
		Source:   d.Name + ".yaml",
	}
	t := &sc.Topology
	if m := d.Topology.Master; m != nil {
		t.Master = &scenarios.Master{Present: m.Present, Flags: m.Flags, HA: m.HA}
	}
	if c := d.Topology.Client; c != nil {
		t.Client = &scenarios.Client{Present: &c.Present, GlobalSegmentSize: size(c.GlobalSegmentSize)}
	}
	if d.Topology.Nodes != nil {
		t.Nodes = make([]scenarios.Node, len(d.Topology.Nodes))
	}
	var pool func(p DocPool) scenarios.HostPool
	pool = func(p DocPool) scenarios.HostPool {
		hp := scenarios.HostPool{Layout: p.Layout, Allocator: p.Allocator, Size: size(p.Size), SharesMain: p.SharesMain,
			PageSize: p.PageSize, PageBytes: size(p.PageBytes)}
		if p.Draft != nil {
			dp := pool(*p.Draft)
			hp.Draft = &dp
		}
		return hp
	}
	for i, n := range d.Topology.Nodes {
		sn := scenarios.Node{Name: n.Name, Memlock: size(n.Memlock), Hugepages: size(n.Hugepages), HostPool: pool(n.HostPool)}
		if n.NIC != nil && n.NIC.RDMA != nil {
			sn.NIC.RDMA = make([]scenarios.RDMADevice, len(n.NIC.RDMA))
			for j, r := range n.NIC.RDMA {
				sn.NIC.RDMA[j] = scenarios.RDMADevice{Name: r.Name, MaxMRSize: size(r.MaxMRSize), MaxMR: r.MaxMR, Broken: r.Broken}
			}
		}
		t.Nodes[i] = sn
	}
	if s := d.Storage; s != nil {
		sc.Storage = scenarios.Storage{Backend: s.Backend, TPRank: s.TPRank, TPSize: s.TPSize}
	}
	if d.Config.Env != nil {
		sc.Config.Env = scenarios.Env{}
		for k, v := range d.Config.Env {
			sc.Config.Env[k] = &v
		}
	}
	if d.Config.File != nil {
		f, ok := jsonValue(d.Config.File)
		if !ok {
			return nil, errNotBuilt
		}
		sc.Config.File = f
	}
	if d.Config.ExtraConfig != nil {
		x, ok := jsonValue(d.Config.ExtraConfig)
		if !ok {
			return nil, errNotBuilt
		}
		sc.Config.ExtraConfig = x.(map[string]any)
	}
	if d.Faults != nil {
		sc.Faults = make([]scenarios.FaultSpec, len(d.Faults))
	}
	for i, f := range d.Faults {
		params, err := scenarios.FaultParams(f.Kind, f.Mode, f.paramStrings())
		if err != nil {
			return nil, errNotBuilt
		}
		sc.Faults[i] = scenarios.FaultSpec{After: f.After, At: dur(f.At), For: dur(f.For), Kind: f.Kind, Target: f.Target,
			Mode: f.Mode, Action: f.Action, Stream: f.Stream, Params: params}
	}
	steps := func(ds []DocStep) ([]scenarios.Step, error) {
		if ds == nil {
			return nil, nil
		}
		out := make([]scenarios.Step, len(ds))
		for i, s := range ds {
			set := 0
			page := func(action string, p *DocPage) {
				set++
				out[i] = scenarios.Step{Action: action, Node: p.Node, Pages: p.Pages}
				if len(p.Pages) == 0 {
					set = -1
				}
			}
			if s.Init != "" {
				set++
				out[i] = scenarios.Step{Action: scenarios.StepInit, Node: s.Init}
			}
			if s.Sleep != "" {
				set++
				out[i] = scenarios.Step{Action: scenarios.StepSleep, Sleep: dur(s.Sleep)}
			}
			if s.HealthCheck != "" {
				set++
				out[i] = scenarios.Step{Action: scenarios.StepHealthCheck, Node: s.HealthCheck}
			}
			for _, a := range []struct {
				action string
				p      *DocPage
			}{{scenarios.StepSet, s.Set}, {scenarios.StepGet, s.Get}, {scenarios.StepExists, s.Exists}} {
				if a.p != nil {
					page(a.action, a.p)
				}
			}
			if set != 1 {
				return nil, errNotBuilt
			}
		}
		return out, nil
	}
	var err error
	if sc.Steps, err = steps(d.Steps); err != nil {
		return nil, err
	}
	if sc.Expect, err = d.Expect.build(); err != nil {
		return nil, err
	}
	if r := d.Remedy; r != nil {
		sc.Remedy = &scenarios.Remedy{}
		if sc.Remedy.Steps, err = steps(r.Steps); err != nil {
			return nil, err
		}
		if sc.Remedy.Expect, err = r.Expect.build(); err != nil {
			return nil, err
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("%s: %w", sc.Source, err)
	}
	return sc, nil
}

func (e DocExpect) build() (scenarios.Expect, error) {
	if e.Codes != nil || e.Dies != nil {
		return scenarios.Expect{}, errNotBuilt
	}
	x := scenarios.Expect{OK: e.OK, Invariants: e.Invariants}
	if e.Raises != nil {
		msg := e.Raises.Message
		x.Raises = &scenarios.Raises{Class: e.Raises.Class, Message: &msg}
	}
	return x, nil
}

// jsonValue is x as the loader decodes it from the doc's JSON: maps,
// lists, int64, float64, bool, string; ok is false for any other type
// (never drawn today), which then takes the loader's path.
func jsonValue(x any) (v any, ok bool) {
	switch t := x.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			if m[k], ok = jsonValue(e); !ok {
				return nil, false
			}
		}
		return m, true
	case []any:
		l := make([]any, len(t))
		for i, e := range t {
			if l[i], ok = jsonValue(e); !ok {
				return nil, false
			}
		}
		return l, true
	case int:
		return int64(t), true
	case int64, float64, bool, string, nil:
		return t, true
	}
	return nil, false
}
