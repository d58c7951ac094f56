package scenarios

import "github.com/mooncake-faultlab/faultlab/engine"

// RunInfo is the metadata of one `faultlab run`, carried in every report
// so a report says what produced it and replay can reuse its settings.
type RunInfo struct {
	Tool      string   `json:"tool"`
	Version   string   `json:"version"`
	Commit    string   `json:"commit"`
	GoVersion string   `json:"go_version"`
	Engines   []string `json:"engines"`
	// EngineOptions are each engine's effective settings (timeout scale
	// as applied: 1 where the engine runs Mooncake's own timeouts).
	EngineOptions map[string]EngineOptions `json:"engine_options"`
	// TimeoutScale is the --timeout-scale given.
	TimeoutScale    float64        `json:"timeout_scale"`
	Seed            uint64         `json:"seed"`
	MooncakeVersion string         `json:"mooncake_version,omitempty"`
	Slow            bool           `json:"slow,omitempty"`
	Jobs            map[string]int `json:"jobs,omitempty"`
	Shard           string         `json:"shard,omitempty"`
	Args            []string       `json:"args,omitempty"`
	WallMS          float64        `json:"wall_ms"`
	Interrupted     bool           `json:"interrupted,omitempty"`
}

// EngineOptions are one engine's settings in a run.
type EngineOptions struct {
	// TimeoutScale is the factor Mooncake's timeouts and sleeps ran at.
	TimeoutScale float64 `json:"timeout_scale"`
	// Wall: the engine runs in wall time (its traces are not reproducible,
	// so replay compares verdict, codes and messages instead of hashes).
	Wall bool `json:"wall"`
}

// OptionsOf is eng's effective settings under opts.
func OptionsOf(eng engine.Engine, opts Options) EngineOptions {
	r := &run{eng: eng, opts: opts}
	return EngineOptions{TimeoutScale: r.wallScale(), Wall: Wall(eng)}
}

// AbstractAddrs writes a world's role addresses in s back as their
// placeholders ({{master}}...), longest address first.
func AbstractAddrs(s string, addrs map[string]string) string { return abstractAddrs(s, addrs) }
