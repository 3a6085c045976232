// Latency samples and the summary figures every scenario reports.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bench {

class Latencies {
 public:
  void reserve(size_t n) { ns_.reserve(n); }
  void add(uint64_t ns) { ns_.push_back(ns); }
  size_t count() const { return ns_.size(); }
  // {"count", "mean_us", "p50_us", "p90_us", "p99_us", "p999_us", "max_us"}
  nlohmann::json summary() const;
  // One sample per line, in microseconds, for the plots.
  void write(const std::string& path) const;

 private:
  std::vector<uint64_t> ns_;
};

// A step reply is a failure when its top-level "type" is "error".
bool is_error_reply(std::string_view text);

}  // namespace bench
