// N sessions, each stepping in a closed loop (next step as soon as the reply
// arrives). Counts the replies that land inside the measured window.
#include "clock.hpp"
#include "scenarios.hpp"
#include "stats.hpp"
#include "ws_client_pool.hpp"

namespace bench {
namespace {

class ThroughputRun : public WsHandler {
 public:
  explicit ThroughputRun(const Options& o) : o_(o) {}
  WsClientPool* pool = nullptr;
  Latencies lat;
  int ready = 0, failed = 0;
  long ok = 0, errors = 0;
  uint64_t window_start = ~0ull, window_end = ~0ull;
  std::string first_failure;

  void on_open(WsConn& c) override { pool->send_text(c, o_.reset_msg); }

  void on_message(WsConn& c, std::string_view text) override {
    const uint64_t t = now_ns();
    if (c.phase == 0) {
      c.phase = 1;
      ++ready;
    } else if (t >= window_start && t < window_end) {
      if (is_error_reply(text)) {
        ++errors;
      } else {
        ++ok;
        lat.add(t - c.t_sent_ns);
      }
    }
    if (t < window_end) pool->send_text(c, o_.step_msg);
  }

  void on_closed(WsConn&, const std::string& why) override {
    ++failed;
    if (first_failure.empty()) first_failure = why;
  }

 private:
  const Options& o_;
};

}  // namespace

nlohmann::json run_throughput(const Options& o) {
  ThroughputRun run(o);
  WsClientPool pool(parse_target(o.url), run, size_t(o.conns));
  run.pool = &pool;
  const uint64_t deadline = now_ns() + uint64_t(o.max_s * 1e9);
  for (int i = 0; i < o.conns; ++i) pool.open(i);
  // Every session is open and reset before the clock starts.
  while (run.ready + run.failed < o.conns && now_ns() < deadline) pool.poll(10);
  const uint64_t t0 = now_ns();
  run.window_start = t0 + uint64_t(o.warmup_s * 1e9);
  run.window_end = run.window_start + uint64_t(o.duration_s * 1e9);
  while (now_ns() < run.window_start) pool.poll(10);
  const double cpu0 = process_cpu_seconds();
  while (now_ns() < run.window_end && run.failed < o.conns) pool.poll(10);
  const double cpu1 = process_cpu_seconds();
  const double secs = double(now_ns() - run.window_start) / 1e9;
  for (int i = 0; i < o.conns; ++i) pool.close(pool.conn(i), true);

  nlohmann::json j;
  j["sessions"] = o.conns;
  j["sessions_opened"] = run.ready;
  j["sessions_failed"] = run.failed;
  j["steps_ok"] = run.ok;
  j["step_errors"] = run.errors;
  j["steps_per_s"] = double(run.ok) / o.duration_s;
  j["latency"] = run.lat.summary();
  j["loadgen_cpu"] = (cpu1 - cpu0) / secs;
  if (!run.first_failure.empty()) j["failure"] = run.first_failure;
  if (!o.samples_out.empty()) run.lat.write(o.samples_out);
  return j;
}

}  // namespace bench
