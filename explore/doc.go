// Package explore generates whole scenarios from seeds, runs them on one or
// more engines, judges them by invariants instead of hand-written
// expectations, shrinks failures to minimal scenarios and keeps them in a
// regression corpus (FoundationDB/VOPR-style deterministic exploration).
package explore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mooncake-faultlab/faultlab/scenarios"
	"gopkg.in/yaml.v3"
)

// Doc is a generated scenario in the shape of its YAML file (docs/SCENARIOS.md).
// Generator and shrinker work on it; Scenario parses it with the ordinary
// loader, so whatever explore runs is exactly what `faultlab run` would run.
type Doc struct {
	Name     string     `yaml:"name" json:"name"`
	Summary  string     `yaml:"summary,omitempty" json:"summary,omitempty"`
	Refs     []string   `yaml:"refs,omitempty" json:"refs,omitempty"`
	Labels   []string   `yaml:"labels,omitempty" json:"labels,omitempty"`
	Engines  []string   `yaml:"engines,omitempty" json:"engines,omitempty"`
	Mooncake DocVersion `yaml:"mooncake" json:"mooncake"`
	Topology DocTopo    `yaml:"topology" json:"topology"`
	Storage  *DocStore  `yaml:"storage,omitempty" json:"storage,omitempty"`
	Config   DocConfig  `yaml:"config" json:"config"`
	Faults   []DocFault `yaml:"faults,omitempty" json:"faults,omitempty"`
	Steps    []DocStep  `yaml:"steps" json:"steps"`
	Expect   DocExpect  `yaml:"expect" json:"expect"`
	Remedy   *DocRemedy `yaml:"remedy,omitempty" json:"remedy,omitempty"`
	// Knobs are the knob values the generator drew (for --coverage); not
	// part of the scenario.
	Knobs []KnobDraw `yaml:"-" json:"-"`
}

type DocVersion struct {
	Versions []string `yaml:"versions" json:"versions"`
}

type DocTopo struct {
	Metadata string     `yaml:"metadata,omitempty" json:"metadata,omitempty"`
	Master   *DocMaster `yaml:"master,omitempty" json:"master,omitempty"`
	Client   *DocClient `yaml:"mooncake_client,omitempty" json:"mooncake_client,omitempty"`
	Nodes    []DocNode  `yaml:"nodes" json:"nodes"`
}

type DocMaster struct {
	Present *bool             `yaml:"present,omitempty" json:"present,omitempty"`
	Flags   map[string]string `yaml:"flags,omitempty" json:"flags,omitempty"`
	HA      bool              `yaml:"ha,omitempty" json:"ha,omitempty"`
}

type DocClient struct {
	Present           bool   `yaml:"present" json:"present"`
	GlobalSegmentSize string `yaml:"global_segment_size,omitempty" json:"global_segment_size,omitempty"`
}

type DocNode struct {
	Name      string  `yaml:"name" json:"name"`
	NIC       *DocNIC `yaml:"nic,omitempty" json:"nic,omitempty"`
	Memlock   string  `yaml:"memlock,omitempty" json:"memlock,omitempty"`
	Hugepages string  `yaml:"hugepages,omitempty" json:"hugepages,omitempty"`
	HostPool  DocPool `yaml:"hostpool" json:"hostpool"`
}

type DocNIC struct {
	RDMA []DocRNIC `yaml:"rdma" json:"rdma"`
}

type DocRNIC struct {
	Name      string `yaml:"name" json:"name"`
	MaxMRSize string `yaml:"max_mr_size,omitempty" json:"max_mr_size,omitempty"`
	MaxMR     int    `yaml:"max_mr,omitempty" json:"max_mr,omitempty"`
	Broken    bool   `yaml:"broken,omitempty" json:"broken,omitempty"`
}

type DocPool struct {
	Layout     string   `yaml:"layout,omitempty" json:"layout,omitempty"`
	Allocator  string   `yaml:"allocator,omitempty" json:"allocator,omitempty"`
	Size       string   `yaml:"size,omitempty" json:"size,omitempty"`
	PageSize   int      `yaml:"page_size,omitempty" json:"page_size,omitempty"`
	PageBytes  string   `yaml:"page_bytes,omitempty" json:"page_bytes,omitempty"`
	Draft      *DocPool `yaml:"draft,omitempty" json:"draft,omitempty"`
	SharesMain bool     `yaml:"shares_main,omitempty" json:"shares_main,omitempty"`
}

type DocStore struct {
	Backend string `yaml:"backend,omitempty" json:"backend,omitempty"`
	TPRank  int    `yaml:"tp_rank,omitempty" json:"tp_rank,omitempty"`
	TPSize  int    `yaml:"tp_size,omitempty" json:"tp_size,omitempty"`
}

type DocConfig struct {
	Env         map[string]string `yaml:"env,omitempty" json:"env,omitempty"`
	File        map[string]any    `yaml:"file,omitempty" json:"file,omitempty"`
	ExtraConfig map[string]any    `yaml:"extra_config,omitempty" json:"extra_config,omitempty"`
}

type DocFault struct {
	After  string `yaml:"after,omitempty" json:"after,omitempty"`
	At     string `yaml:"at" json:"at"`
	For    string `yaml:"for,omitempty" json:"for,omitempty"`
	Kind   string `yaml:"kind" json:"kind"`
	Target string `yaml:"target,omitempty" json:"target,omitempty"`
	Mode   string `yaml:"mode,omitempty" json:"mode,omitempty"`
	Action string `yaml:"action,omitempty" json:"action,omitempty"`
	Stream string `yaml:"stream,omitempty" json:"stream,omitempty"`
	// Params are the parameters the kind or mode owns, as YAML writes them
	// (a duration as a string with a unit, an integer as int64, a string
	// as it is), by key; in the same mapping as the keys above.
	Params map[string]any `yaml:",inline" json:"-"`
}

// docFaultKeys is DocFault without its methods: the common keys.
type docFaultKeys DocFault

// MarshalJSON writes the parameters in the fault's mapping, as YAML does.
func (f DocFault) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(docFaultKeys(f))
	if err != nil || len(f.Params) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range f.Params {
		if m[k], err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the keys that are not common ones as parameters
// (an integer as int64).
func (f *DocFault) UnmarshalJSON(b []byte) error {
	var keys docFaultKeys
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return err
	}
	for _, k := range []string{"after", "at", "for", "kind", "target", "mode", "action", "stream"} {
		delete(m, k)
	}
	keys.Params = nil
	for k, v := range m {
		if n, ok := v.(json.Number); ok {
			i, err := n.Int64()
			if err != nil {
				return fmt.Errorf("fault parameter %s: %w", k, err)
			}
			v = i
		}
		if keys.Params == nil {
			keys.Params = map[string]any{}
		}
		keys.Params[k] = v
	}
	*f = DocFault(keys)
	return nil
}

// paramStrings are the parameters as YAML scalars.
func (f DocFault) paramStrings() map[string]string {
	out := make(map[string]string, len(f.Params))
	for k, v := range f.Params {
		out[k] = fmt.Sprint(v)
	}
	return out
}

// DocStep is one step; exactly one field is set.
type DocStep struct {
	Init        string   `yaml:"init,omitempty" json:"init,omitempty"`
	Sleep       string   `yaml:"sleep,omitempty" json:"sleep,omitempty"`
	Set         *DocPage `yaml:"set,omitempty" json:"set,omitempty"`
	Get         *DocPage `yaml:"get,omitempty" json:"get,omitempty"`
	Exists      *DocPage `yaml:"exists,omitempty" json:"exists,omitempty"`
	HealthCheck string   `yaml:"health_check,omitempty" json:"health_check,omitempty"`
}

type DocPage struct {
	Node  string   `yaml:"node,omitempty" json:"node,omitempty"`
	Pages []string `yaml:"pages" json:"pages"`
}

// DocExpect is a generated scenario's oracle: the invariants, plus (in the
// corpus) what a real engine observed.
type DocExpect struct {
	OK         *bool          `yaml:"ok,omitempty" json:"ok,omitempty"`
	Raises     *DocRaises     `yaml:"raises,omitempty" json:"raises,omitempty"`
	Codes      map[string]any `yaml:"codes,omitempty" json:"codes,omitempty"`
	Dies       map[string]any `yaml:"dies,omitempty" json:"dies,omitempty"`
	Invariants bool           `yaml:"invariants" json:"invariants"`
}

type DocRaises struct {
	Class   string `yaml:"class" json:"class"`
	Message string `yaml:"message" json:"message"`
}

type DocRemedy struct {
	Steps  []DocStep `yaml:"steps,omitempty" json:"steps,omitempty"`
	Expect DocExpect `yaml:"expect" json:"expect"`
}

// Marshal writes the doc as YAML.
func (d *Doc) Marshal() []byte {
	b, err := yaml.Marshal(d)
	if err != nil {
		// Doc holds only strings, ints, bools, maps and slices of them.
		panic(fmt.Sprintf("explore: marshal generated scenario: %v", err))
	}
	return b
}

// Scenario is the doc as a validated scenario: built directly (build)
// and checked by scenarios.Validate, the loader's own checks; a doc build
// does not convert (a corpus finding's codes) goes through the loader.
func (d *Doc) Scenario() (*scenarios.Scenario, error) {
	sc, err := d.build()
	if errors.Is(err, errNotBuilt) {
		return d.load()
	}
	if err != nil {
		return nil, err
	}
	if err := scenarios.Validate(sc.Source, sc); err != nil {
		return nil, err
	}
	return sc, nil
}

// load parses the doc's canonical encoding with the ordinary loader.
func (d *Doc) load() (*scenarios.Scenario, error) {
	return scenarios.Parse(d.Name+".yaml", d.Canonical())
}

// Canonical is the doc encoded as JSON (which is YAML): map keys sorted,
// fields in declaration order, so a pure function of the doc. Its SHA-256
// is the seed's share of generated_hash.
func (d *Doc) Canonical() []byte {
	b, err := json.Marshal(d)
	if err != nil {
		// Doc holds only strings, ints, bools, maps and slices of them.
		panic(fmt.Sprintf("explore: encode generated scenario: %v", err))
	}
	return b
}

// Clone deep-copies the doc (the shrinker mutates copies).
func (d *Doc) Clone() *Doc {
	var c Doc
	b, err := json.Marshal(d)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil {
		panic(fmt.Sprintf("explore: clone: %v", err))
	}
	return &c
}
