# Ounce developer tasks. `make run` and `make test` are the two commands the README promises.
SHELL := /bin/bash
GO ?= go
PG_TEST_DB ?= ounce_test
# What `ounce version` and /healthz report. VERSION=1.2.3 names a release; otherwise the
# checkout's `git describe` (or dev outside git).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT := $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
BUILD_DATE := $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.buildDate=$(BUILD_DATE)

.PHONY: run test generate css check build bench

## run: build ./ounce, then serve it on http://127.0.0.1:8080 with the embedded SQLite database in ./data
# Built, then run (rather than `go run`), so each step can say what it is doing: the first
# build compiles every dependency and takes minutes with nothing else to show.
run:
	@echo "make run: building ./ounce (go build ./cmd/ounce; the first build compiles every dependency and can take a few minutes, later ones seconds)"
	@$(GO) build -ldflags "$(LDFLAGS)" -o ounce ./cmd/ounce
	@echo "make run: starting ./ounce serve on http://$${OUNCE_ADDR:-127.0.0.1:8080} (Ctrl-C stops it; OUNCE_OFFLINE=1 starts quietly without network)"
	@./ounce serve

## build: the ounce binary, stamped with version, commit and build date (ounce version)
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o ounce ./cmd/ounce

## test: the whole suite (unit, both database engines, browser); installs the tools it drives if missing.
# PostgreSQL: OUNCE_TEST_POSTGRES_URL if set; else database $(PG_TEST_DB) on a local server (say so first).
test:
	@bash .ci/tools
	@if [ -z "$$OUNCE_TEST_POSTGRES_URL" ] && [ -n "$(PG_TEST_DB)" ] && command -v pg_isready >/dev/null && pg_isready -q -h 127.0.0.1 -p 5432; then \
		echo "PostgreSQL tests: database $(PG_TEST_DB) on 127.0.0.1:5432, user postgres (created if missing; each test uses its own schema; PG_TEST_DB= skips PostgreSQL, OUNCE_TEST_POSTGRES_URL picks another server)"; \
		psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='$(PG_TEST_DB)'" 2>/dev/null | grep -q 1 || \
			psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE $(PG_TEST_DB)" 2>/dev/null || true; \
		export OUNCE_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:5432/$(PG_TEST_DB)?sslmode=disable"; \
	else \
		echo "PostgreSQL tests: $${OUNCE_TEST_POSTGRES_URL:-skipped (PG_TEST_DB is empty or no server answers on 127.0.0.1:5432; set OUNCE_TEST_POSTGRES_URL)}"; \
	fi; \
	$(GO) test -count=1 -timeout 20m -skip '^TestLighthouseScores$$' ./... && \
	echo "Lighthouse: measured last, with nothing else running (its performance score moves with the machine's load)" && \
	$(GO) test -count=1 -timeout 10m -run '^TestLighthouseScores$$' ./e2e/

## generate: templ components and the Tailwind stylesheet
generate: css
	$(GO) tool templ generate

css:
	@test -d node_modules/tailwindcss || npm ci --no-audit --no-fund
	npx tailwindcss -c tailwind.config.js -i web/styles/input.css -o static/css/app.css --minify

## check: formatting, vet, and drift of generated files
check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(MAKE) -s generate >/dev/null
	@git diff --exit-code -- '*_templ.go' static/css/app.css || (echo "generated files drifted: run make generate and commit"; exit 1)
