# faultlab — see README.md.
GO            ?= go
GINKGO_FLAGS  ?=
# Mooncake versions the real engine installs: the newest, and one that
# lacks the SSD-offload and tenant setup kwargs.
REAL_VERSIONS ?= 0.3.13.post1,0.3.9

.PHONY: all build test test-unit test-scenarios real-engine bench run lint clean

all: build

build:
	$(GO) build -o bin/faultlab ./cmd/faultlab

## test: everything — installs the real engine first when PyPI is reachable.
test: real-engine
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 45m ./...

## test-unit: models, sglang, loader — no real engine, no network faults.
test-unit:
	$(GO) test -count=1 ./mooncake/... ./trace/... ./faults/... ./sim/... ./sglang/... ./scenarios/...

## test-scenarios: the catalog suites (sim, fake; real when installed).
test-scenarios:
	$(GO) test -count=1 -timeout 30m ./suites/... -args $(GINKGO_FLAGS)

## real-engine: venvs with real Mooncake wheels (idempotent; skipped without PyPI).
real-engine:
	$(GO) run ./cmd/faultlab install real --versions $(REAL_VERSIONS) --if-reachable

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./sim/... ./scenarios/... ./suites/...

run: build
	./bin/faultlab run

clean:
	rm -rf bin
