// Shared helpers for the unit tests: paths of the built plugins, and an
// Environment over a real plugin library.
#pragma once

#include "environment.h"
#include "plugin_library.h"

#include <memory>
#include <string>

namespace envhost::test {

std::string echo_plugin();                 // build/plugins/echo_env.so
std::string test_plugin(const std::string& file); // build/test-plugins/<file>
std::string example_plugin(const std::string& file);

// A started Environment over the given library.
std::shared_ptr<Environment> make_env(const std::string& path, EnvSettings settings = {});

} // namespace envhost::test
