// Session lifecycle costs: how long a new session takes to answer its first
// reset (connect), and what idle sessions cost the server (hold).
#include "clock.hpp"
#include "scenarios.hpp"
#include "stats.hpp"
#include "ws_client_pool.hpp"

namespace bench {
namespace {

class SessionRun : public WsHandler {
 public:
  explicit SessionRun(const Options& o) : o_(o) {}
  WsClientPool* pool = nullptr;
  bool close_after_reset = false;  // connect: one session at a time
  int pending = 0, held = 0, failed = 0;
  uint64_t last_ns = 0;            // connect -> first observation of the last session
  std::string first_failure;

  void on_open(WsConn& c) override { pool->send_text(c, o_.reset_msg); }

  void on_message(WsConn& c, std::string_view text) override {
    if (c.phase != 0) return;
    c.phase = 1;
    --pending;
    if (is_error_reply(text)) {
      ++failed;
      if (first_failure.empty()) first_failure = std::string(text.substr(0, 200));
      pool->close(c, false);
      return;
    }
    ++held;
    last_ns = now_ns() - c.t_connect_ns;
    if (close_after_reset) {
      pool->send_text(c, R"({"type":"close"})");
      pool->close(c, true);
    }
  }

  void on_closed(WsConn& c, const std::string& why) override {
    if (c.phase == 0) --pending, ++failed;
    c.phase = -1;
    if (first_failure.empty()) first_failure = why;
  }

 private:
  const Options& o_;
};

}  // namespace

nlohmann::json run_connect(const Options& o) {
  SessionRun run(o);
  run.close_after_reset = true;
  WsClientPool pool(parse_target(o.url), run, 1);
  run.pool = &pool;
  Latencies lat;
  const uint64_t deadline = now_ns() + uint64_t(o.max_s * 1e9);
  for (int i = 0; i < o.warmup + o.requests && now_ns() < deadline; ++i) {
    const int failed_before = run.failed;
    pool.conn(0).phase = 0;
    run.pending = 1;
    pool.open(0);
    while (run.pending > 0 && now_ns() < deadline) pool.poll(50);
    if (run.failed == failed_before && i >= o.warmup) lat.add(run.last_ns);
    pool.close(pool.conn(0), false);
  }
  nlohmann::json j = lat.summary();
  j["failed"] = run.failed;
  if (!run.first_failure.empty()) j["failure"] = run.first_failure;
  if (!o.samples_out.empty()) lat.write(o.samples_out);
  return j;
}

nlohmann::json run_hold(const Options& o) {
  SessionRun run(o);
  WsClientPool pool(parse_target(o.url), run, size_t(o.conns));
  run.pool = &pool;
  const uint64_t t0 = now_ns();
  const uint64_t deadline = t0 + uint64_t(o.level_timeout_s * 1e9);
  int opened = 0;
  while (now_ns() < deadline && (opened < o.conns || run.pending > 0)) {
    while (run.pending < o.max_pending && opened < o.conns) {
      ++run.pending;
      pool.open(opened++);
    }
    pool.poll(5);
  }
  const double open_s = double(now_ns() - t0) / 1e9;
  emit_event({{"event", "held"}, {"sessions", o.conns}, {"held", run.held}});
  // Idle: only answer the server's pings until the hold time is up.
  const uint64_t until = now_ns() + uint64_t(o.hold_s * 1e9);
  while (now_ns() < until) pool.poll(50);
  int still_open = 0;
  for (int i = 0; i < opened; ++i) {
    still_open += pool.conn(i).state == WsConn::State::Open;
    pool.close(pool.conn(i), true);
  }
  nlohmann::json j = {{"sessions", o.conns}, {"held", run.held}, {"failed", run.failed},
                      {"still_open_at_end", still_open}, {"open_s", open_s}};
  if (!run.first_failure.empty()) j["failure"] = run.first_failure;
  return j;
}

}  // namespace bench
