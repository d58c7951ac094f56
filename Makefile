# faultlab — see README.md.
GO            ?= go
GINKGO_FLAGS  ?=
# Mooncake versions the real engine installs: every version the catalog
# names that has a non-CUDA wheel (PyPI has them from 0.3.7.post1). 0.3.9 and
# 0.3.10.post1 lack the SSD-offload kwargs, 0.3.11.post1 the tenant kwarg,
# 0.3.7.post2 MooncakeHostMemAllocator; 0.3.12.post1 (≈ 24 s with its
# libcudart fix) is the last to split the segment by MC_MAX_MR_SIZE.
REAL_VERSIONS ?= 0.3.13.post1,0.3.12.post1,0.3.11.post1,0.3.10.post1,0.3.9,0.3.8.post1,0.3.7.post2

# nightly: time budget of the sim exploration, and the differential samples.
NIGHTLY_BUDGET ?= 30m
NIGHTLY_FAKE_SEEDS ?= 500
NIGHTLY_REAL_SEEDS ?= 200
NIGHTLY_DIR    ?= nightly
NIGHTLY_SEED   ?= $(shell date +%Y%m%d)000000

.PHONY: all build test test-unit test-scenarios real-engine bench run lint clean nightly

all: build

build:
	$(GO) build -o bin/faultlab ./cmd/faultlab

## test: everything — installs the real engine first when PyPI is reachable.
## Packages run one at a time (-p 1): real Mooncake processes and the fake
## engine's scaled timeouts must not fight for the two cores.
test: real-engine
	$(GO) vet ./...
	$(GO) test -p 1 -count=1 -timeout 60m ./...

## test-unit: models, sglang, loader — no real engine, no network faults.
test-unit:
	$(GO) test -count=1 ./mooncake/... ./trace/... ./faults/... ./sim/... ./sglang/... ./scenarios/...

## test-scenarios: the catalog suites (sim, fake; real when installed).
test-scenarios:
	$(GO) test -count=1 -timeout 40m ./suites/... -args $(GINKGO_FLAGS)

## real-engine: venvs with real Mooncake wheels (idempotent; skipped without PyPI).
real-engine:
	$(GO) run ./cmd/faultlab install real --versions $(REAL_VERSIONS) --if-reachable

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./sim/... ./scenarios/... ./explore/... ./suites/...

## nightly: a time-budgeted sim exploration from today's seed, a fake and a
## real differential sample, then the regression corpus on sim and real.
## New minimal failing scenarios land in scenarios/regressions/; reports
## (JSON + JUnit) in $(NIGHTLY_DIR)/. Exits non-zero when anything was found.
nightly: build real-engine
	mkdir -p $(NIGHTLY_DIR)
	rc=0; \
	./bin/faultlab explore --time-budget $(NIGHTLY_BUDGET) --seed $(NIGHTLY_SEED) -j 2 \
	  --report $(NIGHTLY_DIR)/sim.json --junit $(NIGHTLY_DIR)/sim.xml || rc=1; \
	./bin/faultlab explore --engine sim,fake --seeds $(NIGHTLY_FAKE_SEEDS) --seed $(NIGHTLY_SEED) -j 2 \
	  --report $(NIGHTLY_DIR)/fake.json --junit $(NIGHTLY_DIR)/fake.xml || rc=1; \
	./bin/faultlab explore --engine sim,real --seeds $(NIGHTLY_REAL_SEEDS) --seed $(NIGHTLY_SEED) -j 4 --shrink-budget 8 \
	  --report $(NIGHTLY_DIR)/real.json --junit $(NIGHTLY_DIR)/real.xml || rc=1; \
	./bin/faultlab run scenarios/regressions/ --label '!open-divergence' --label '!open-harness' --engine sim,real --report $(NIGHTLY_DIR)/corpus.json || rc=1; \
	./bin/faultlab run scenarios/regressions/ --label open-divergence --engine real --report $(NIGHTLY_DIR)/open.json || rc=1; \
	exit $$rc

run: build
	./bin/faultlab run

clean:
	rm -rf bin
