#include "test_support.h"

#include <gtest/gtest.h>

#include <spdlog/spdlog.h>

namespace envhost::test {

std::string echo_plugin() { return std::string(ENVHOST_PLUGIN_BUILD_DIR) + "/echo_env.so"; }
std::string test_plugin(const std::string& file) { return std::string(ENVHOST_TEST_PLUGIN_DIR) + "/" + file; }
std::string example_plugin(const std::string& file) { return std::string(ENVHOST_EXAMPLES_DIR) + "/" + file; }

std::shared_ptr<Environment> make_env(const std::string& path, EnvSettings settings) {
    spdlog::set_level(spdlog::level::warn);
    auto env = std::make_shared<Environment>(PluginLibrary::load(path), std::move(settings));
    std::string error;
    if (!env->start(error)) throw std::runtime_error(error);
    return env;
}

} // namespace envhost::test
