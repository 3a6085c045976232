// envhost-loadgen: the benchmark's load generator. One thread, one epoll loop;
// prints progress events and, last, the result as one JSON line on stdout.
//
//   envhost-loadgen MODE --url URL [options]
//   MODE: latency | throughput | capacity | connect | hold | http
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "clock.hpp"
#include "scenarios.hpp"

namespace bench {

void emit_event(const nlohmann::json& event) {
  std::cout << event.dump() << std::endl;  // flushed: the driver reads it live
}

}  // namespace bench

namespace {

std::vector<int> parse_levels(const std::string& s) {
  std::vector<int> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stoi(item));
  return out;
}

int usage() {
  std::cerr << "usage: envhost-loadgen latency|throughput|capacity|connect|hold|http --url URL\n"
               "  [--step JSON] [--reset JSON] [--conns N] [--requests N] [--warmup N]\n"
               "  [--warmup-s S] [--duration-s S] [--max-s S] [--levels A,B,..] [--steps-per-level N]\n"
               "  [--think-s S] [--step-timeout-s S] [--level-timeout-s S] [--success-goal F]\n"
               "  [--max-pending N] [--hold-s S] [--samples-out FILE]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace bench;
  if (argc < 2) return usage();
  const std::string mode = argv[1];
  Options o;
  std::map<std::string, std::function<void(const std::string&)>> flags = {
      {"--url", [&](auto& v) { o.url = v; }},
      {"--step", [&](auto& v) { o.step_msg = v; }},
      {"--reset", [&](auto& v) { o.reset_msg = v; }},
      {"--conns", [&](auto& v) { o.conns = std::stoi(v); }},
      {"--requests", [&](auto& v) { o.requests = std::stoi(v); }},
      {"--warmup", [&](auto& v) { o.warmup = std::stoi(v); }},
      {"--warmup-s", [&](auto& v) { o.warmup_s = std::stod(v); }},
      {"--duration-s", [&](auto& v) { o.duration_s = std::stod(v); }},
      {"--max-s", [&](auto& v) { o.max_s = std::stod(v); }},
      {"--levels", [&](auto& v) { o.levels = parse_levels(v); }},
      {"--steps-per-level", [&](auto& v) { o.steps_per_level = std::stoi(v); }},
      {"--think-s", [&](auto& v) { o.think_s = std::stod(v); }},
      {"--step-timeout-s", [&](auto& v) { o.step_timeout_s = std::stod(v); }},
      {"--level-timeout-s", [&](auto& v) { o.level_timeout_s = std::stod(v); }},
      {"--success-goal", [&](auto& v) { o.success_goal = std::stod(v); }},
      {"--max-pending", [&](auto& v) { o.max_pending = std::stoi(v); }},
      {"--hold-s", [&](auto& v) { o.hold_s = std::stod(v); }},
      {"--samples-out", [&](auto& v) { o.samples_out = v; }},
  };
  for (int i = 2; i < argc; i += 2) {
    auto it = flags.find(argv[i]);
    if (it == flags.end() || i + 1 >= argc) return usage();
    it->second(argv[i + 1]);
  }
  if (o.url.empty()) return usage();

  std::map<std::string, nlohmann::json (*)(const Options&)> modes = {
      {"latency", run_latency}, {"throughput", run_throughput}, {"capacity", run_capacity},
      {"connect", run_connect}, {"hold", run_hold},             {"http", run_http}};
  auto run = modes.find(mode);
  if (run == modes.end()) return usage();
  try {
    const double cpu0 = process_cpu_seconds();
    const uint64_t t0 = now_ns();
    nlohmann::json result = run->second(o);
    result["event"] = "result";
    result["mode"] = mode;
    result["loadgen_cpu_total_s"] = process_cpu_seconds() - cpu0;
    result["wall_s"] = double(now_ns() - t0) / 1e9;
    emit_event(result);
  } catch (const std::exception& e) {
    std::cerr << "envhost-loadgen: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
