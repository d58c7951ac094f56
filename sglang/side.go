package sglang

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// Scheduler is one started SGLang scheduler's storage side, as the scenario
// steps drive it: HiCache's zero-copy v1 page I/O, a health probe, what it
// saw from Mooncake, and the scheduler going away.
type Scheduler interface {
	BatchSetV1(ctx context.Context, keys []string, hostIndices []int64) ([]bool, error)
	BatchGetV1(ctx context.Context, keys []string, hostIndices []int64) ([]bool, error)
	BatchExists(ctx context.Context, keys []string) (int, error)
	HealthCheck(ctx context.Context) (int, error)
	// Calls is every MooncakeDistributedStore call SGLang made, in order,
	// with what Python got back; it stays readable after Close and after
	// the process died.
	Calls() []MooncakeCall
	Close(ctx context.Context) error
}

// Side is who plays SGLang in a run: the Go model of this package (Model,
// the default) or SGLang's own Python code (realengine.SGLang). Start has
// Start's contract: a Python exception is a *engine.PyError with SGLang's
// class and text, a death inside Mooncake an *engine.ProcessDied, a path the
// side cannot run an *engine.Unsupported; the Scheduler is non-nil once the
// process started, also on error, so its Calls are observations.
type Side interface {
	// Name is the CLI name: "model" or "real".
	Name() string
	// SGLangVersion is the SGLang release it plays (e.g. "0.5.23").
	SGLangVersion() string
	Start(ctx context.Context, l Launch) (Scheduler, error)
}

// Startup is implemented by Schedulers whose start includes time that is
// neither SGLang's nor Mooncake's behaviour (real SGLang's Python import):
// the runner leaves it out of phase durations.
type Startup interface{ StartupTime() time.Duration }

// StartAllowance is implemented by Sides whose Start needs wall time beyond
// the scenario's own bound (the import); the runner adds it per init step.
type StartAllowance interface{ StartAllowance() time.Duration }

// Preparer is implemented by Sides that start their processes before the
// world's time runs (real SGLang imports for seconds, and a fault at 30 s
// must find SGLang where the model would be): the runner calls Prepare
// after Launch and before the faults are armed.
type Preparer interface {
	Prepare(ctx context.Context, w engine.World, nodes []string) error
}

// Model is the Go model as a Side, following the SGLang release Version
// ("" = LatestVersion) where releases differ.
type Model struct{ Version string }

// ModelSide is the Side's CLI name of the Go model.
const ModelSide = "model"

// Name implements Side.
func (Model) Name() string { return ModelSide }

// SGLangVersion implements Side.
func (m Model) SGLangVersion() string {
	if m.Version == "" {
		return LatestVersion
	}
	return m.Version
}

// Start implements Side with Start at the model's version.
func (m Model) Start(ctx context.Context, l Launch) (Scheduler, error) {
	if l.SGLangVersion == "" {
		l.SGLangVersion = m.SGLangVersion()
	}
	st, err := Start(ctx, l)
	if st == nil { // no typed nil in the interface
		return nil, err
	}
	return st, err
}

var _ Scheduler = (*MooncakeStore)(nil)

// SGLang releases (PyPI) whose mooncake_store.py the model follows. The
// catalog relies on behaviours present from OldestVersion on: the warmup
// retry loop and MooncakeEmbeddingStore (0.5.11), the setup() kwarg
// fallback loop (0.5.13), the standalone allocator check naming
// mooncake-transfer-engine (0.5.15) and the tenant_id check (0.5.17).
const (
	OldestVersion = "0.5.17"
	LatestVersion = "0.5.23"
)

// Versions are the releases the model follows for the whole catalog.
var Versions = []string{OldestVersion, LatestVersion}

// NamedVersions are older releases the model follows only for scenarios
// that name them exactly (sglang.versions): their mooncake_store.py was
// diffed against 0.5.17's and the differences are gated (tenant_id and the
// config prefix, the standalone check's text), and their host-pool
// builders read (the draft and decode-offload pools' allocators); the
// rest of the catalog was not checked at them.
var NamedVersions = []string{"0.5.14", "0.5.16"}

// Follows reports whether the model can play release.
func Follows(release string) bool {
	return slices.Contains(Versions, release) || slices.Contains(NamedVersions, release)
}

// AtRelease is the model playing release.
func (m Model) AtRelease(release string) (Side, error) {
	if !Follows(release) {
		return nil, fmt.Errorf("the model follows SGLang %s", strings.Join(append(slices.Clone(NamedVersions), Versions...), ", "))
	}
	return Model{Version: release}, nil
}

// Pinned reports whether the release was chosen by the user (a scenario's
// sglang.versions then does not choose it).
func (m Model) Pinned() bool { return m.Version != "" }

// Retargetable is a Side whose release a scenario's sglang.versions may
// choose when the user did not pin one.
type Retargetable interface {
	Side
	Pinned() bool
	AtRelease(release string) (Side, error)
}
