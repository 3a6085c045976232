#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>

namespace bench {

nlohmann::json Latencies::summary() const {
  nlohmann::json j;
  j["count"] = ns_.size();
  if (ns_.empty()) return j;
  std::vector<uint64_t> s(ns_);
  std::sort(s.begin(), s.end());
  auto pct = [&](double p) {
    size_t i = size_t(std::ceil(p / 100.0 * double(s.size()))) - 1;
    return double(s[std::min(i, s.size() - 1)]) / 1000.0;
  };
  double sum = 0;
  for (auto v : s) sum += double(v);
  j["mean_us"] = sum / double(s.size()) / 1000.0;
  j["p50_us"] = pct(50);
  j["p90_us"] = pct(90);
  j["p99_us"] = pct(99);
  j["p999_us"] = pct(99.9);
  j["max_us"] = double(s.back()) / 1000.0;
  return j;
}

void Latencies::write(const std::string& path) const {
  std::ofstream out(path);
  for (auto v : ns_) out << double(v) / 1000.0 << '\n';
}

// Replies are not parsed (that would cost the generator more than some servers
// spend on a step); an error reply is the only one with "type":"error", since
// observation payloads here never carry that pair.
bool is_error_reply(std::string_view text) {
  size_t pos = 0;
  while ((pos = text.find("\"type\"", pos)) != std::string_view::npos) {
    pos += 6;
    size_t i = pos;
    while (i < text.size() && (text[i] == ' ' || text[i] == ':')) ++i;
    if (text.compare(i, 7, "\"error\"") == 0) return true;
  }
  return false;
}

}  // namespace bench
