#include "plugin_scanner.h"

#include <boost/filesystem.hpp>

#include <algorithm>
#include <set>

namespace envhost {

ScanResult scan_plugin_dirs(const std::vector<std::string>& dirs) {
    namespace fs = boost::filesystem;
    ScanResult out;
    std::set<std::string> names;
    for (const auto& dir : dirs) {
        boost::system::error_code ec;
        if (!fs::is_directory(dir, ec)) {
            out.skipped.push_back({dir, "not a directory"});
            continue;
        }
        std::vector<fs::path> files;
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
            if (it->path().extension() == ".so" && fs::is_regular_file(it->path(), ec)) files.push_back(it->path());
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            try {
                auto lib = PluginLibrary::load(f.string());
                const std::string& name = lib->descriptor().name;
                if (!names.insert(name).second) {
                    out.skipped.push_back({f.string(), "environment '" + name + "' is already loaded from another file"});
                    continue;
                }
                out.loaded.push_back(std::move(lib));
            } catch (const PluginLoadError& e) {
                out.skipped.push_back({f.string(), e.what()});
            } catch (const std::exception& e) {
                out.skipped.push_back({f.string(), std::string("unexpected error: ") + e.what()});
            }
        }
    }
    return out;
}

} // namespace envhost
