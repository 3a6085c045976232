# The two commands a newcomer needs:
#   make run    install what is missing, build, serve the bundled plugins on :8000
#   make test   install what is missing, build, run every test (ctest + pytest)
BUILD ?= build
VENV  ?= .venv
PORT  ?= 8000
HOST  ?= 127.0.0.1
# Served at the root paths too, so base_url="http://localhost:8000" works.
DEFAULT_ENV ?= coding_env
PYTHON ?= /usr/bin/python3
JOBS  ?= $(shell nproc)

.PHONY: all deps build run test unit-test integration-test venv clean

all: build

deps:
	@./scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/host/envhost --plugin-dir $(BUILD)/plugins --host $(HOST) --port $(PORT) --default-env $(DEFAULT_ENV)

$(VENV)/.stamp: tests/requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r tests/requirements.txt
	touch $@

venv: deps $(VENV)/.stamp

unit-test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

integration-test: build venv
	ENVHOST_BUILD=$(abspath $(BUILD)) $(VENV)/bin/pytest -q tests/integration

test: unit-test integration-test

clean:
	rm -rf $(BUILD)

# Debian packages (packaging/README.md): `make deb` writes them to dist/,
# `make package-test` installs them on a clean Debian 12 root and checks them.
DIST      ?= dist
DEB_BUILD ?= $(BUILD)/deb

.PHONY: deb package-deps package-test

package-deps:
	@./packaging/install-deps.sh

$(DEB_BUILD)/build.ninja:
	cmake -S . -B $(DEB_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
	  -DENVHOST_BUILD_TESTS=OFF -DENVHOST_BUILD_EXAMPLES=OFF -DCPACK_OUTPUT_FILE_PREFIX=$(abspath $(DIST))

deb: deps package-deps $(DEB_BUILD)/build.ninja
	cmake --build $(DEB_BUILD) -j $(JOBS)
	rm -f $(DIST)/*.deb
	cd $(DEB_BUILD) && cpack

package-test: deb
	./packaging/tests/package-test.sh $(DIST)

bench: build
	./bench/run.sh
