# faultlab — see README.md.
GO            ?= go
GINKGO_FLAGS  ?=
# Mooncake versions the real engine installs. "catalog" = derived from the
# catalog and mooncake.Versions: every version a catalog scenario runs at on
# real (scenarios labelled needs-rdma-hw aside) that has a non-CUDA wheel
# (PyPI has them from 0.3.7.post1). The real catalog suite may skip nothing
# else.
REAL_VERSIONS ?= catalog

.PHONY: all build test test-unit test-scenarios real-engine bench run lint clean

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
	$(GO) test -run '^$$' -bench . -benchtime 2s ./sim/... ./scenarios/... ./suites/...

run: build
	./bin/faultlab run

clean:
	rm -rf bin
