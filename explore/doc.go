// Package explore generates whole scenarios from seeds, runs them on one or
// more engines, judges them by invariants instead of hand-written
// expectations, shrinks failures to minimal scenarios and keeps them in a
// regression corpus (FoundationDB/VOPR-style deterministic exploration).
package explore

import (
	"fmt"

	"github.com/mooncake-faultlab/faultlab/scenarios"
	"gopkg.in/yaml.v3"
)

// Doc is a generated scenario in the shape of its YAML file (docs/SCENARIOS.md).
// Generator and shrinker work on it; Scenario parses it with the ordinary
// loader, so whatever explore runs is exactly what `faultlab run` would run.
type Doc struct {
	Name     string     `yaml:"name"`
	Summary  string     `yaml:"summary,omitempty"`
	Refs     []string   `yaml:"refs,omitempty"`
	Labels   []string   `yaml:"labels,omitempty"`
	Engines  []string   `yaml:"engines,omitempty"`
	Mooncake DocVersion `yaml:"mooncake"`
	Topology DocTopo    `yaml:"topology"`
	Storage  *DocStore  `yaml:"storage,omitempty"`
	Config   DocConfig  `yaml:"config"`
	Faults   []DocFault `yaml:"faults,omitempty"`
	Steps    []DocStep  `yaml:"steps"`
	Expect   DocExpect  `yaml:"expect"`
	Remedy   *DocRemedy `yaml:"remedy,omitempty"`
}

type DocVersion struct {
	Versions []string `yaml:"versions"`
}

type DocTopo struct {
	Metadata string     `yaml:"metadata,omitempty"`
	Master   *DocMaster `yaml:"master,omitempty"`
	Client   *DocClient `yaml:"mooncake_client,omitempty"`
	Nodes    []DocNode  `yaml:"nodes"`
}

type DocMaster struct {
	Present *bool             `yaml:"present,omitempty"`
	Flags   map[string]string `yaml:"flags,omitempty"`
}

type DocClient struct {
	Present           bool   `yaml:"present"`
	GlobalSegmentSize string `yaml:"global_segment_size,omitempty"`
}

type DocNode struct {
	Name      string  `yaml:"name"`
	NIC       *DocNIC `yaml:"nic,omitempty"`
	Memlock   string  `yaml:"memlock,omitempty"`
	Hugepages string  `yaml:"hugepages,omitempty"`
	HostPool  DocPool `yaml:"hostpool"`
}

type DocNIC struct {
	RDMA []DocRNIC `yaml:"rdma"`
}

type DocRNIC struct {
	Name      string `yaml:"name"`
	MaxMRSize string `yaml:"max_mr_size,omitempty"`
	MaxMR     int    `yaml:"max_mr,omitempty"`
	Broken    bool   `yaml:"broken,omitempty"`
}

type DocPool struct {
	Layout     string   `yaml:"layout,omitempty"`
	Allocator  string   `yaml:"allocator,omitempty"`
	Size       string   `yaml:"size,omitempty"`
	PageSize   int      `yaml:"page_size,omitempty"`
	PageBytes  string   `yaml:"page_bytes,omitempty"`
	Draft      *DocPool `yaml:"draft,omitempty"`
	SharesMain bool     `yaml:"shares_main,omitempty"`
}

type DocStore struct {
	Backend string `yaml:"backend,omitempty"`
	TPRank  int    `yaml:"tp_rank,omitempty"`
	TPSize  int    `yaml:"tp_size,omitempty"`
}

type DocConfig struct {
	Env         map[string]string `yaml:"env,omitempty"`
	File        map[string]any    `yaml:"file,omitempty"`
	ExtraConfig map[string]any    `yaml:"extra_config,omitempty"`
}

type DocFault struct {
	At      string `yaml:"at"`
	For     string `yaml:"for,omitempty"`
	Kind    string `yaml:"kind"`
	Target  string `yaml:"target,omitempty"`
	Mode    string `yaml:"mode,omitempty"`
	Action  string `yaml:"action,omitempty"`
	Stream  string `yaml:"stream,omitempty"`
	Latency string `yaml:"latency,omitempty"`
	Rate    int64  `yaml:"rate_kbps,omitempty"`
	AvgSize int64  `yaml:"average_size,omitempty"`
	Bytes   int64  `yaml:"bytes,omitempty"`
}

// DocStep is one step; exactly one field is set.
type DocStep struct {
	Init        string   `yaml:"init,omitempty"`
	Sleep       string   `yaml:"sleep,omitempty"`
	Set         *DocPage `yaml:"set,omitempty"`
	Get         *DocPage `yaml:"get,omitempty"`
	Exists      *DocPage `yaml:"exists,omitempty"`
	HealthCheck string   `yaml:"health_check,omitempty"`
}

type DocPage struct {
	Node  string   `yaml:"node,omitempty"`
	Pages []string `yaml:"pages"`
}

// DocExpect is a generated scenario's oracle: the invariants, plus (in the
// corpus) what a real engine observed.
type DocExpect struct {
	OK         *bool             `yaml:"ok,omitempty"`
	Raises     *DocRaises        `yaml:"raises,omitempty"`
	Codes      map[string]any    `yaml:"codes,omitempty"`
	Dies       map[string]string `yaml:"dies,omitempty"`
	Invariants bool              `yaml:"invariants"`
}

type DocRaises struct {
	Class   string `yaml:"class"`
	Message string `yaml:"message"`
}

type DocRemedy struct {
	Steps  []DocStep `yaml:"steps,omitempty"`
	Expect DocExpect `yaml:"expect"`
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

// Scenario parses the doc with the ordinary loader.
func (d *Doc) Scenario() (*scenarios.Scenario, []byte, error) {
	b := d.Marshal()
	sc, err := scenarios.Parse(d.Name+".yaml", b)
	return sc, b, err
}

// Clone deep-copies the doc (the shrinker mutates copies).
func (d *Doc) Clone() *Doc {
	var c Doc
	b := d.Marshal()
	if err := yaml.Unmarshal(b, &c); err != nil {
		panic(fmt.Sprintf("explore: clone: %v", err))
	}
	return &c
}
