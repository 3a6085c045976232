#!/bin/sh
# The Debian packages envhost needs to build, run and test. (python3-numpy:
# the coding_env tests check that installed packages import in the sandbox.)
exec "$(dirname "$0")/apt-install-missing.sh" \
  cmake ninja-build g++ make pkg-config python3 python3-venv \
  libpoco-dev nlohmann-json3-dev libboost-dev libboost-filesystem-dev \
  libspdlog-dev libvalijson-dev libgtest-dev libgmock-dev python3-numpy
