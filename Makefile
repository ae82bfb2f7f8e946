# The targets are the commands the README shows. `make demo` and `make test` install the Debian
# packages they need first (with sudo when not root), so they work on a fresh machine that has
# the Swift toolchain on PATH.

SWIFT ?= swift
PREFIX ?= /usr/local
DEMO_DIR ?= $(CURDIR)/demo-state

# Build: pkg-config and the C libraries' headers. Tests: tools the end-to-end tests drive.
BUILD_PACKAGES := pkg-config libnfc-dev libgpiod-dev libasound2-dev tzdata
TEST_PACKAGES := $(BUILD_PACKAGES) util-linux pulseaudio pulseaudio-utils libasound2-plugins

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build deps test-deps demo test lint format clean bench

all: build

# Installs missing packages only; `apt-get update` runs once, and only when something is missing.
define apt_install
	@missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  $(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q $$missing; \
	fi
endef

deps:
	$(call apt_install,$(BUILD_PACKAGES))

test-deps:
	$(call apt_install,$(TEST_PACKAGES))

build: deps
	$(SWIFT) build

# The demo form of the product: no reader (--simulate), state, config and socket in a local
# folder. It runs in the foreground; drive it from a second terminal (README "Try it").
demo: build
	@mkdir -p $(DEMO_DIR)
	@[ -f $(DEMO_DIR)/puckd.conf ] || printf '%s\n' \
	  '# Demo settings: quick retries so the loop is easy to watch.' \
	  '[audio]' 'device = default' 'start_volume = 40%' 'ramp = 10s' \
	  '[enforcement]' 'retry_delay = 10s' 'ring_timeout = 2min' > $(DEMO_DIR)/puckd.conf
	@echo "puckd is starting in SIMULATED mode. In another terminal:"
	@echo "  export PUCK_SOCKET=$(DEMO_DIR)/puckd.sock PATH=$(CURDIR)/.build/debug:\$$PATH"
	@echo "  puckctl status"
	$(CURDIR)/.build/debug/puckd --simulate --config $(DEMO_DIR)/puckd.conf \
	  --state-dir $(DEMO_DIR)/state --socket $(DEMO_DIR)/puckd.sock

test: test-deps
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	$(SWIFT) test --skip-build --parallel

lint:
	$(SWIFT) format lint --strict -r Package.swift Sources Tests

format:
	$(SWIFT) format -i -r Package.swift Sources Tests

clean:
	rm -rf .build

# Figures, not assertions: idle cost, socket round trip, alarm and scan latency, and the
# calendar against systemd-analyze. Uses a release build.
bench: deps
	$(SWIFT) build -c release
	python3 bench/puckd-bench.py .build/release
