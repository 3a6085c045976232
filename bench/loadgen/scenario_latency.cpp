// One session: reset, `warmup` steps, then `requests` timed steps back to back.
#include "clock.hpp"
#include "scenarios.hpp"
#include "stats.hpp"
#include "ws_client_pool.hpp"

namespace bench {
namespace {

class LatencyRun : public WsHandler {
 public:
  explicit LatencyRun(const Options& o) : o_(o) { lat.reserve(size_t(o.requests)); }
  WsClientPool* pool = nullptr;
  Latencies lat;
  int errors = 0;
  bool finished = false;
  std::string failure;
  double cpu_start = 0, cpu_end = 0;
  uint64_t t_start = 0, t_end = 0;

  void on_open(WsConn& c) override { pool->send_text(c, o_.reset_msg); }

  void on_message(WsConn& c, std::string_view text) override {
    const uint64_t t = now_ns();
    if (is_error_reply(text)) ++errors;
    if (c.phase == 0) {
      c.phase = 1;
    } else {
      ++c.count;
      if (c.count == o_.warmup) cpu_start = process_cpu_seconds(), t_start = t;
      if (c.count > o_.warmup) lat.add(t - c.t_sent_ns);
      if (c.count == o_.warmup + o_.requests) {
        cpu_end = process_cpu_seconds(), t_end = t;
        finished = true;
        pool->close(c, true);
        return;
      }
    }
    pool->send_text(c, o_.step_msg);
  }

  void on_closed(WsConn&, const std::string& why) override {
    if (!finished) failure = why;
    finished = true;
  }

 private:
  const Options& o_;
};

}  // namespace

nlohmann::json run_latency(const Options& o) {
  LatencyRun run(o);
  WsClientPool pool(parse_target(o.url), run, 1);
  run.pool = &pool;
  const uint64_t deadline = now_ns() + uint64_t(o.max_s * 1e9);
  if (o.warmup == 0) run.cpu_start = process_cpu_seconds(), run.t_start = now_ns();
  pool.open(0);
  while (!run.finished && now_ns() < deadline) pool.poll(100);
  nlohmann::json j = run.lat.summary();
  j["errors"] = run.errors;
  if (!run.failure.empty()) j["failure"] = run.failure;
  if (!run.finished) j["failure"] = "timed out";
  if (run.t_end > run.t_start)
    j["loadgen_cpu"] = (run.cpu_end - run.cpu_start) / (double(run.t_end - run.t_start) / 1e9);
  if (!o.samples_out.empty()) run.lat.write(o.samples_out);
  return j;
}

}  // namespace bench
