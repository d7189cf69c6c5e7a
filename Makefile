# swift-traffic — every job a user or CI runs. `make run` and `make test` do all the set-up
# on a fresh Debian 12 machine that has the Swift toolchain.

SWIFT ?= swift
# apt-get needs root; use sudo when not running as root.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Debian packages, one list per job (the only place packages are named).
RUN_PACKAGES := zlib1g-dev libbz2-dev liblz4-dev libzstd-dev tzdata libsqlite3-dev libjemalloc-dev libmicrohttpd-dev libpq-dev libcairo2-dev libjs-leaflet sumo sumo-tools
TEST_PACKAGES := $(RUN_PACKAGES) git python3 python3-pip python3-venv python3-jsonschema libxml2-utils postgresql postgresql-15-postgis-3 chromium python3-lz4 python3-zstandard curl jq
BENCH_PACKAGES := $(RUN_PACKAGES) python3 python3-rtree wrk nginx-light curl time postgresql postgresql-15-postgis-3
VECTOR_PACKAGES := python3 python3-geographiclib python3-pyproj

# The main job: the server with the live demo on http://127.0.0.1:8080 (Ctrl-C stops it).
RUN_ARGS ?= serve --demo

.PHONY: deps deps-test deps-bench routing-tools python-tools run test bench accuracy fuzz build release install format lint vectors clean

# The routing engines the speed exports are for, run by the export tests: OSRM and Valhalla
# as their official Python wheels ship them (prebuilt programs with their libraries; only
# the programs are used, so the wheels' Python version does not matter).
OSRM_WHEEL := osrm-bindings==26.10.0
VALHALLA_WHEEL := pyvalhalla==3.9.1
TOOLS_DIR := .build/tools

# Seconds each fuzz target runs under `make fuzz`.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := datex2 wzdx open511 waze here-v7 tomtom flexible-polyline wkt geojson openlr json-stream v7-query v8-query osrm-query post-body

# Installs the Debian packages that are missing (only those) for the job named in PACKAGES.
define install_missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

deps:
	$(call install_missing,$(RUN_PACKAGES))

deps-test:
	$(call install_missing,$(TEST_PACKAGES))

deps-bench:
	$(call install_missing,$(BENCH_PACKAGES))

routing-tools: deps-test
	@for wheel in $(OSRM_WHEEL) $(VALHALLA_WHEEL); do \
	  stamp=$(TOOLS_DIR)/.$$wheel; [ -f "$$stamp" ] && continue; \
	  echo "Fetching $$wheel (its OSRM or Valhalla programs) into $(TOOLS_DIR)"; \
	  rm -rf $(TOOLS_DIR)/download && mkdir -p $(TOOLS_DIR)/download && \
	  /usr/bin/python3 -m pip download --quiet --no-deps --only-binary=:all: \
	    --python-version 3.12 --platform manylinux_2_28_x86_64 \
	    -d $(TOOLS_DIR)/download "$$wheel" && \
	  /usr/bin/python3 -m zipfile -e $(TOOLS_DIR)/download/*.whl $(TOOLS_DIR) && \
	  chmod +x $(TOOLS_DIR)/osrm/bin/* $(TOOLS_DIR)/valhalla/bin/* 2>/dev/null; \
	  rm -rf $(TOOLS_DIR)/download; touch "$$stamp" || exit 1; \
	done

# The Python programs the API tests run: openapi-spec-validator checks /openapi.json against
# the OpenAPI 3.1 schema, schemathesis sends the server requests generated from it; pyvroom
# (VROOM) and routingpy are the real OSRM clients the OSRM API is tested with. They go
# into a virtual environment of their own, $(PYTHON_VENV), not the system's Python, once per
# set of pinned versions (the stamp names them).
PYTHON_TOOLS := openapi-spec-validator==0.9.0 schemathesis==4.32.5 pyvroom==1.15.2 routingpy==1.3.0
PYTHON_VENV := $(TOOLS_DIR)/venv
python-tools: deps-test
	@stamp="$(PYTHON_VENV)/.installed-$$(echo '$(PYTHON_TOOLS)' | tr ' ' '+')"; \
	  [ -f "$$stamp" ] && exit 0; \
	  echo "Installing $(PYTHON_TOOLS) into $(PYTHON_VENV)"; \
	  rm -rf $(PYTHON_VENV) && /usr/bin/python3 -m venv $(PYTHON_VENV) && \
	  $(PYTHON_VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
	    $(PYTHON_TOOLS) && touch "$$stamp"

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product traffic

# Installs the release binary with its resource bundles (the web map, the text catalogs,
# the demo's recording) and the Swift runtime libraries it loads in
# $(PREFIX)/lib/swift-traffic, where it finds them from its own location (so it runs on a
# machine without the toolchain), and links it as $(PREFIX)/bin/traffic; the manual page traffic(1), made by
# `traffic help --man`, and the systemd unit dist/traffic.service.in with the prefix filled
# in. DESTDIR stages a package.
PREFIX ?= /usr/local
install: release
	@bin="$$($(SWIFT) build -c release --show-bin-path)"; \
	  lib="$(DESTDIR)$(PREFIX)/lib/swift-traffic"; \
	  rm -rf "$$lib" && mkdir -p "$$lib" "$(DESTDIR)$(PREFIX)/bin" && \
	  install -m 755 "$$bin/traffic" "$$lib/traffic" && \
	  dist/copy-swift-runtime.sh "$$bin/traffic" "$$lib" && \
	  for bundle in "$$bin"/*.resources; do cp -R "$$bundle" "$$lib/"; done && \
	  ln -sfn ../lib/swift-traffic/traffic "$(DESTDIR)$(PREFIX)/bin/traffic" && \
	  mkdir -p "$(DESTDIR)$(PREFIX)/share/man/man1" "$(DESTDIR)$(PREFIX)/lib/systemd/system" && \
	  "$$lib/traffic" help --man > "$(DESTDIR)$(PREFIX)/share/man/man1/traffic.1" && \
	  sed 's|@PREFIX@|$(PREFIX)|g' dist/traffic.service.in \
	    > "$(DESTDIR)$(PREFIX)/lib/systemd/system/traffic.service" && \
	  echo "installed $(DESTDIR)$(PREFIX)/bin/traffic ($$("$$lib/traffic" --version))," \
	    "its manual page and the systemd unit traffic.service"

run: release
	$$($(SWIFT) build -c release --show-bin-path)/traffic $(RUN_ARGS)

# Suites that time real sockets and child processes, or whose probes age with the wall
# clock, run in a second pass, one test at a time: beside CPU-bound or blocking tests, the
# two-thread cooperative pool of a two-core machine would starve their waits (a CLI test's
# probes once left the 5-minute live window while it waited 192 s).
TIMED_SUITES := TrafficServerTests|RemoteEngineTests|FeedPollerTests|ServerCommandsTests|FlowCommandsTests|InstalledDemoTests|DocumentationRunTests|TrafficPostgresTests|WebMapBrowserTests|TrafficDemoTests|MultiNodeTests

test: deps-test routing-tools python-tools
	$(SWIFT) build --build-tests
	@for target in $(FUZZ_TARGETS); do \
	  seeds=$$(ls -d Tests/*/Fuzz/$$target 2>/dev/null); [ -z "$$seeds" ] && continue; \
	  TRAFFIC_FUZZ_TARGET=$$target $$($(SWIFT) build --show-bin-path)/traffic-fuzz $$seeds || exit 1; \
	done
	@# Two passes (the timed suites alone after the rest); the console shows each suite's end
	@# and every failure, .build/test-output.log the whole output (see Tests/run.sh).
	SWIFT=$(SWIFT) Tests/run.sh '$(TIMED_SUITES)'

bench: deps-bench
	bench/run.sh

# Flow and ETAs against SUMO over several simulated days on three networks, at 5, 15 and 40 %
# of the vehicles as probes (traffic-bench --accuracy; the table goes into
# docs/performance.md). About 25 minutes on two cores, besides the release build.
accuracy: deps
	$(SWIFT) build -c release --product traffic-bench
	$$($(SWIFT) build -c release --show-bin-path)/traffic-bench --accuracy

# Builds traffic-fuzz with libFuzzer and runs every target for FUZZ_SECONDS from its seeds.
fuzz: deps-test
	$(SWIFT) build --product traffic-fuzz -Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING \
	  --scratch-path .build/fuzz
	@for target in $(FUZZ_TARGETS); do \
	  corpus=.build/fuzz/corpus/$$target; mkdir -p $$corpus .build/fuzz/artifacts; \
	  seeds=$$(ls -d Tests/*/Fuzz/$$target 2>/dev/null); \
	  echo "== fuzzing $$target for $(FUZZ_SECONDS) s"; \
	  SWIFT_BACKTRACE=enable=no TRAFFIC_FUZZ_TARGET=$$target \
	    .build/fuzz/debug/traffic-fuzz $$corpus $$seeds -artifact_prefix=.build/fuzz/artifacts/ \
	    -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	    -print_final_stats=1 || exit 1; \
	done

format:
	$(SWIFT) format -i -r -p Package.swift Sources Tests

lint:
	$(SWIFT) format lint -r -p Package.swift Sources Tests

# Regenerates the geodesic reference vectors with GeographicLib (not needed for tests).
vectors:
	$(call install_missing,$(VECTOR_PACKAGES))
	/usr/bin/python3 Tests/GeoTests/Vectors/make_geodesic_vectors.py

clean:
	rm -rf .build
