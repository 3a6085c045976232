// The load patterns the benchmark runs. Each returns its figures as JSON; the
// driver prints that as the last line of stdout.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bench {

struct Options {
  std::string url;                                       // ws://... or http://...
  std::string reset_msg = R"({"type":"reset","data":{}})";
  std::string step_msg;                                  // a whole WS message, or an HTTP body
  int conns = 1;                                         // concurrent sessions/connections
  int requests = 1000;                                   // measured round trips (latency, connect)
  int warmup = 100;                                      // unmeasured round trips first
  double warmup_s = 1.0;                                 // unmeasured time (throughput, http)
  double duration_s = 5.0;                               // measured time
  double max_s = 120.0;                                  // hard limit for the whole run
  std::vector<int> levels;                               // capacity: session counts to try
  int steps_per_level = 3;                               // capacity: steps each session makes per level
  double think_s = 1.0;                                  // capacity: pause between a session's steps
  double step_timeout_s = 10.0;                          // capacity: a reply later than this fails
  double level_timeout_s = 60.0;                         // capacity: time to open a level's sessions
  double success_goal = 0.999;                           // capacity: pass mark per level
  int max_pending = 256;                                 // sessions being opened at once
  double hold_s = 5.0;                                   // hold: how long to keep sessions idle
  std::string samples_out;                               // file for raw latency samples (µs)
};

nlohmann::json run_latency(const Options& o);     // one session, sequential steps
nlohmann::json run_throughput(const Options& o);  // N sessions, closed-loop steps
nlohmann::json run_capacity(const Options& o);    // ramp held sessions until steps fail
nlohmann::json run_connect(const Options& o);     // connect -> first observation, repeated
nlohmann::json run_hold(const Options& o);        // open N idle sessions and keep them
nlohmann::json run_http(const Options& o);        // stateless POSTs on keep-alive connections

// Prints a progress event (one JSON line) so the driver can act mid-run.
void emit_event(const nlohmann::json& event);

}  // namespace bench
