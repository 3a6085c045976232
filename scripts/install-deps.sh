#!/bin/sh
# The Debian packages envhost needs to build, run and test.
exec "$(dirname "$0")/apt-install-missing.sh" \
  cmake ninja-build g++ make pkg-config python3 python3-venv \
  libpoco-dev nlohmann-json3-dev libboost-dev libboost-filesystem-dev \
  libspdlog-dev libvalijson-dev libgtest-dev libgmock-dev
