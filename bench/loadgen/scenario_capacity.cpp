// Ramp: at each level, open sessions up to the level's count (keeping the ones
// already open), then have every held session make a few spaced-out steps.
// A level passes when at least `success_goal` of all expected steps succeed;
// a session that could not be opened counts all its steps as failed.
#include <algorithm>
#include <map>

#include "clock.hpp"
#include "scenarios.hpp"
#include "stats.hpp"
#include "ws_client_pool.hpp"

namespace bench {
namespace {

enum Phase { kOpening = 0, kHeld = 1, kStepping = 2, kDead = -1 };

class CapacityRun : public WsHandler {
 public:
  explicit CapacityRun(const Options& o) : o_(o) {}
  WsClientPool* pool = nullptr;
  int pending = 0;
  long ok = 0, error_replies = 0;
  Latencies lat;
  std::map<std::string, int> reasons;  // why sessions died, with counts

  void on_open(WsConn& c) override { pool->send_text(c, o_.reset_msg); }

  void on_message(WsConn& c, std::string_view text) override {
    const bool error = is_error_reply(text);
    if (c.phase == kOpening) {
      --pending;
      if (error) return kill(c, "reset failed: " + std::string(text.substr(0, 160)));
      c.phase = kHeld;
    } else if (c.phase == kStepping) {
      ++c.count;
      if (error) {
        ++error_replies;
        ++reasons["step error: " + std::string(text.substr(0, 160))];
      } else {
        ++ok;
        lat.add(now_ns() - c.t_sent_ns);
      }
      c.phase = kHeld;
      c.due_ns = now_ns() + uint64_t(o_.think_s * 1e9);
    }
  }

  void on_closed(WsConn& c, const std::string& why) override {
    if (c.phase == kOpening) --pending;
    c.phase = kDead;
    ++reasons[why.substr(0, 200)];
  }

  void kill(WsConn& c, const std::string& why) {
    pool->close(c, false);
    c.phase = kDead;
    ++reasons[why];
  }

 private:
  const Options& o_;
};

uint64_t jitter(uint64_t range_ns) {
  static uint64_t s = 88172645463325252ull;
  s ^= s << 13, s ^= s >> 7, s ^= s << 17;
  return range_ns ? s % range_ns : 0;
}

}  // namespace

nlohmann::json run_capacity(const Options& o) {
  const int top = o.levels.empty() ? 0 : *std::max_element(o.levels.begin(), o.levels.end());
  CapacityRun run(o);
  WsClientPool pool(parse_target(o.url), run, size_t(top));
  run.pool = &pool;
  const uint64_t run_deadline = now_ns() + uint64_t(o.max_s * 1e9);
  const uint64_t think = uint64_t(o.think_s * 1e9), timeout = uint64_t(o.step_timeout_s * 1e9);
  nlohmann::json levels = nlohmann::json::array();
  int opened = 0, best = 0;

  for (int level : o.levels) {
    if (now_ns() >= run_deadline) break;
    run.reasons.clear();
    run.ok = run.error_replies = 0;
    run.lat = Latencies();
    // Open phase: bounded in time and in connects in flight.
    const uint64_t t_open = now_ns();
    const uint64_t open_deadline = std::min(run_deadline, t_open + uint64_t(o.level_timeout_s * 1e9));
    while (now_ns() < open_deadline && (opened < level || run.pending > 0)) {
      while (run.pending < o.max_pending && opened < level) {
        pool.conn(opened).phase = kOpening;
        ++run.pending;
        pool.open(opened++);
      }
      pool.poll(5);
    }
    const double open_s = double(now_ns() - t_open) / 1e9;
    int held = 0;
    for (int i = 0; i < level; ++i) held += pool.conn(i).phase == kHeld;
    emit_event({{"event", "held"}, {"sessions", level}, {"held", held}});

    // Step phase: every held session makes steps_per_level steps, spread out.
    const uint64_t t_steps = now_ns();
    for (int i = 0; i < level; ++i) {
      WsConn& c = pool.conn(i);
      c.count = 0;
      c.due_ns = t_steps + jitter(think);
    }
    const uint64_t step_deadline = std::min(
        run_deadline, uint64_t(t_steps + think * uint64_t(o.steps_per_level + 1) + timeout + 2000000000ull));
    for (bool busy = true; busy && now_ns() < step_deadline;) {
      pool.poll(2);
      busy = false;
      const uint64_t t = now_ns();
      for (int i = 0; i < level; ++i) {
        WsConn& c = pool.conn(i);
        if (c.phase == kStepping && t - c.t_sent_ns > timeout) {
          run.kill(c, "step timed out");
        } else if (c.phase == kHeld && c.count < o.steps_per_level) {
          if (t >= c.due_ns) {
            c.phase = kStepping;
            pool.send_text(c, o.step_msg);
          }
          busy = true;
        }
        busy |= c.phase == kStepping;
      }
    }
    const long expected = long(level) * o.steps_per_level;
    const double ratio = double(run.ok) / double(expected);
    nlohmann::json lv = {{"sessions", level},        {"held", held},
                         {"open_s", open_s},          {"steps_expected", expected},
                         {"steps_ok", run.ok},        {"step_error_replies", run.error_replies},
                         {"success_ratio", ratio},    {"latency", run.lat.summary()},
                         {"failures", run.reasons}};
    levels.push_back(lv);
    emit_event({{"event", "level"}, {"result", lv}});
    if (ratio < o.success_goal) break;
    best = level;
  }
  for (int i = 0; i < opened; ++i) pool.close(pool.conn(i), true);
  return {{"levels", levels}, {"max_sessions_passed", best}, {"success_goal", o.success_goal},
          {"steps_per_level", o.steps_per_level}, {"think_s", o.think_s},
          {"step_timeout_s", o.step_timeout_s}};
}

}  // namespace bench
