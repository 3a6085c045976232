// Finds plugin libraries (*.so) in directories and loads the valid ones.
// Called once on the main thread at start.
#pragma once

#include "plugin_library.h"

#include <memory>
#include <string>
#include <vector>

namespace envhost {

struct SkippedPlugin {
    std::string path;
    std::string reason;
};

struct ScanResult {
    std::vector<std::shared_ptr<PluginLibrary>> loaded; // unique environment names
    std::vector<SkippedPlugin> skipped;
};

// Every *.so file directly inside each directory, in name order. A file that
// fails to load, or whose environment name was already loaded, is skipped
// with the reason.
ScanResult scan_plugin_dirs(const std::vector<std::string>& dirs);

} // namespace envhost
