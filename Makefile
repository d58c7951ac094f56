# faultlab — see README.md.
GO            ?= go
GINKGO_FLAGS  ?=
# Mooncake versions the real engine installs. "catalog" = derived from the
# catalog and mooncake.Versions: every version a catalog scenario runs at on
# real (scenarios labelled needs-rdma-hw aside) that has a wheel recipe
# (realengine/recipe.go: the non-CUDA wheel from 0.3.7.post1, 0.3.14's cuda13
# wheel with a stub libcuda, the old CUDA wheels that load on CPU; `faultlab
# versions list`). Each version costs its install (18–34 s, once) and its
# scenarios' real runs (docs/RELEASES.md). The real catalog suite may skip
# nothing else.
REAL_VERSIONS ?= catalog
# SGLang releases for --sglang real (one pinned venv of about 6 GB each, every
# Mooncake venv combines with each): the newest, the oldest release that has
# every behaviour the catalog relies on, and the older releases scenarios
# name (0.9 GB each: torch and the CUDA wheels from 0.5.17's venv;
# docs/ENGINES.md).
SGLANG_VERSIONS ?= 0.5.23,0.5.17,0.5.16,0.5.14

# nightly: time budget of the sim exploration, and the differential samples.
NIGHTLY_BUDGET ?= 30m
NIGHTLY_FAKE_SEEDS ?= 500
NIGHTLY_REAL_SEEDS ?= 200
NIGHTLY_DIR    ?= nightly
NIGHTLY_CORPUS ?= scenarios/regressions
NIGHTLY_SEED   ?= $(shell date +%Y%m%d)000000

.PHONY: all build test test-all test-unit test-scenarios real-engine junit-xsd bench run lint clean docs nightly test-containers images images-clean

all: build

# The commit and version are stamped explicitly: VCS stamping is off where
# GOFLAGS has -buildvcs=false, and a git worktree is not always detected.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
LDFLAGS := -X main.buildVersion=$(VERSION) -X main.buildCommit=$(COMMIT)

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/faultlab ./cmd/faultlab

## test: every kind of check in about 15 minutes with warm caches (README,
## "What make test runs"): installs the real engine when PyPI is reachable,
## beside vet and the packages that need none of it, then runs the rest in
## two lanes at once (suites/lanes.sh).
## CI_LABELS narrows the suites by Ginkgo label; specs labelled nightly
## (the container catalogs beyond one world per container scenario, the
## corpus on real) are left to `make nightly` and `make test-all`.
CI_LABELS ?= !nightly
# Packages whose tests run real Mooncake, the fake engine's scaled timeouts
# or containers: one at a time, after the others ran in parallel.
SERIAL_PKGS := /realengine$$|/fakeengine$$|/containers|/cmd/faultlab$$
test: junit-xsd
	@# The real engine's install, vet, the packages' tests and the suites
	@# (suites/lanes.sh): the install beside vet and the packages that need
	@# none of it, then two lanes at once; the run ends with where the
	@# suites' time went and each failed spec's message: a CI log cut to its
	@# tail still says why. REPORT_DIR=dir keeps the lanes' Ginkgo JSON reports.
	INSTALL='$(MAKE) --no-print-directory real-engine' REPORT_DIR='$(REPORT_DIR)' \
		suites/lanes.sh '$(GO)' '$(CI_LABELS)' '$(SERIAL_PKGS)'

## test-all: make test with nothing left out: the nightly-labelled specs
## and the SGLang agreement at every Mooncake version.
test-all:
	FAULTLAB_FULL_AGREEMENT=1 $(MAKE) test CI_LABELS=

## test-unit: models, sglang, loader — no real engine, no network faults.
test-unit:
	$(GO) test -count=1 ./mooncake/... ./trace/... ./faults/... ./engine/... ./models/... ./sim/... ./sglang/... ./scenarios/...

## test-scenarios: the catalog suites (sim, fake; real when installed).
test-scenarios:
	$(GO) test -count=1 -timeout 80m ./suites/... -args $(GINKGO_FLAGS)

## real-engine: venvs with real Mooncake wheels and real SGLang (idempotent;
## skipped without PyPI).
## Both installs run at once: they mostly wait on PyPI and unpacking.
real-engine:
	$(GO) build -o bin/.faultlab-install ./cmd/faultlab
	@bin/.faultlab-install install real --versions $(REAL_VERSIONS) --if-reachable --timeout 30m & mc=$$!; \
	bin/.faultlab-install install sglang --versions $(SGLANG_VERSIONS) --if-reachable --timeout 45m; rc=$$?; \
	wait $$mc || rc=1; exit $$rc

## images: the container worlds' images, built here (mmdebstrap base, Mooncake
## wheel installed offline, static fake and toxiproxy); cached by input hash.
COMPOSE_VERSION ?= 0.3.13.post1
images:
	$(GO) run ./cmd/faultlab images build --versions $(COMPOSE_VERSION)

## images-clean: remove every container and network labelled faultlab.world.
images-clean:
	$(GO) run ./cmd/faultlab images clean

## test-containers: images, compose.yaml and container worlds (needs Docker).
test-containers:
	$(GO) test -p 1 -count=1 -timeout 40m ./containers/... && $(GO) test -count=1 -timeout 40m ./suites/... -args -ginkgo.label-filter=containers

## junit-xsd: the usual JUnit schema (junit-10.xsd) for report/junit's test (idempotent; skipped without PyPI).
junit-xsd:
	@.ci/junit-xsd

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./models/... ./sim/... ./scenarios/... ./explore/... ./suites/...

## nightly: a time-budgeted sim exploration from today's seed, a fake and a
## real differential sample, the regression corpus on sim and real, then
## the suites' nightly-labelled specs and the SGLang agreement at every
## Mooncake version; first the knob table's coverage (every knob drawn in
## every value class). New minimal failing scenarios land in
## scenarios/regressions/; reports (JSON + JUnit) in $(NIGHTLY_DIR)/
## (NIGHTLY_CORPUS: where new findings go). Exits non-zero when anything
## was found.
nightly: build real-engine
	mkdir -p $(NIGHTLY_DIR)
	rc=0; \
	./bin/faultlab explore --coverage --seeds 3000 --seed $(NIGHTLY_SEED) --json > $(NIGHTLY_DIR)/coverage.json || rc=1; \
	./bin/faultlab explore --time-budget $(NIGHTLY_BUDGET) --seed $(NIGHTLY_SEED) -j 2 --corpus $(NIGHTLY_CORPUS) \
	  --report $(NIGHTLY_DIR)/sim.json --junit $(NIGHTLY_DIR)/sim.xml || rc=1; \
	./bin/faultlab explore --engine sim,fake --seeds $(NIGHTLY_FAKE_SEEDS) --seed $(NIGHTLY_SEED) -j 2 --corpus $(NIGHTLY_CORPUS) \
	  --report $(NIGHTLY_DIR)/fake.json --junit $(NIGHTLY_DIR)/fake.xml || rc=1; \
	./bin/faultlab explore --engine sim,real --seeds $(NIGHTLY_REAL_SEEDS) --seed $(NIGHTLY_SEED) -j 4 --shrink-budget 8 --corpus $(NIGHTLY_CORPUS) \
	  --report $(NIGHTLY_DIR)/real.json --junit $(NIGHTLY_DIR)/real.xml || rc=1; \
	./bin/faultlab run scenarios/regressions/ --label '!open-divergence' --label '!open-harness' --engine sim,real --report $(NIGHTLY_DIR)/corpus.json || rc=1; \
	if grep -qlxE -- ' *- open-divergence|labels: *\[.*open-divergence.*\]' scenarios/regressions/*.yaml; then \
	  ./bin/faultlab run scenarios/regressions/ --label open-divergence --engine real --report $(NIGHTLY_DIR)/open.json || rc=1; fi; \
	FAULTLAB_FULL_AGREEMENT=1 $(GO) test -count=1 -timeout 3h ./suites/ -args -ginkgo.label-filter='(nightly && !regressions) || sglang-real' \
	  -ginkgo.junit-report=$(CURDIR)/$(NIGHTLY_DIR)/suites.xml || rc=1; \
	$(GO) test -count=1 -timeout 20m ./realengine/ -args -ginkgo.label-filter=nightly || rc=1; \
	exit $$rc

run: build
	./bin/faultlab run

## docs: regenerate the fault tables in docs/SCENARIOS.md and the JSON Schema
## (kinds, modes, actions) from the fault registry (a test fails while stale).
docs:
	$(GO) run ./cmd/faultlab list --faults > docs/.faults.md
	awk -v gen=docs/.faults.md '/<!-- faults:begin/ {print; while ((getline l < gen) > 0) print l; skip=1; next} /<!-- faults:end -->/ {skip=0} !skip' docs/SCENARIOS.md > docs/.SCENARIOS.md
	mv docs/.SCENARIOS.md docs/SCENARIOS.md && rm docs/.faults.md
	$(GO) generate ./scenarios

clean:
	rm -rf bin
