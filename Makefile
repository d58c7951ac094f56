# faultlab — see README.md.
GO            ?= go
GINKGO_FLAGS  ?=
# Mooncake versions the real engine installs: every version the catalog
# names that has a non-CUDA wheel (PyPI has them from 0.3.7.post1), except
# 0.3.12.post1 whose only catalog scenario needs RDMA hardware. 0.3.9 and
# 0.3.10.post1 lack the SSD-offload kwargs, 0.3.11.post1 the tenant kwarg,
# 0.3.7.post2 MooncakeHostMemAllocator.
REAL_VERSIONS ?= 0.3.13.post1,0.3.11.post1,0.3.10.post1,0.3.9,0.3.8.post1,0.3.7.post2

.PHONY: all build test test-unit test-scenarios test-containers real-engine images images-clean bench run lint clean

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

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./sim/... ./scenarios/... ./suites/...

run: build
	./bin/faultlab run

clean:
	rm -rf bin
