// Stateless HTTP: N keep-alive connections each POSTing in a closed loop.
#include "clock.hpp"
#include "http_client_pool.hpp"
#include "scenarios.hpp"
#include "stats.hpp"

namespace bench {
namespace {

class HttpRun : public HttpHandler {
 public:
  explicit HttpRun(const Options& o) : o_(o) {}
  HttpClientPool* pool = nullptr;
  Latencies lat;
  long ok = 0, bad_status = 0, failed = 0;
  uint64_t window_start = 0, window_end = ~0ull;
  std::string first_failure;

  void on_response(HttpConn& c, int status, std::string_view body) override {
    const uint64_t t = now_ns();
    if (t >= window_start && t < window_end) {
      if (status >= 200 && status < 300) {
        ++ok;
        lat.add(t - c.t_sent_ns);
      } else {
        ++bad_status;
        if (first_failure.empty())
          first_failure = "HTTP " + std::to_string(status) + ": " + std::string(body.substr(0, 200));
      }
    }
    if (t < window_end) pool->post(c, o_.step_msg);
  }

  void on_failed(HttpConn& c, const std::string& why) override {
    ++failed;
    if (first_failure.empty()) first_failure = why;
    // Reconnect while the run lasts, as a pooled client would.
    if (now_ns() < window_end && failed < 1000) {
      pool->open(c.id);
      pool->post(c, o_.step_msg);
    }
  }

 private:
  const Options& o_;
};

}  // namespace

nlohmann::json run_http(const Options& o) {
  HttpRun run(o);
  HttpClientPool pool(parse_target(o.url), run, size_t(o.conns));
  run.pool = &pool;
  const uint64_t t0 = now_ns();
  run.window_start = t0 + uint64_t(o.warmup_s * 1e9);
  run.window_end = run.window_start + uint64_t(o.duration_s * 1e9);
  for (int i = 0; i < o.conns; ++i) {
    pool.open(i);
    pool.post(pool.conn(i), o.step_msg);
  }
  while (now_ns() < run.window_start) pool.poll(10);
  const double cpu0 = process_cpu_seconds();
  while (now_ns() < run.window_end) pool.poll(10);
  const double cpu1 = process_cpu_seconds();
  nlohmann::json j = {{"connections", o.conns},
                      {"requests_ok", run.ok},
                      {"bad_status", run.bad_status},
                      {"connection_failures", run.failed},
                      {"requests_per_s", double(run.ok) / o.duration_s},
                      {"latency", run.lat.summary()},
                      {"loadgen_cpu", (cpu1 - cpu0) / o.duration_s}};
  if (!run.first_failure.empty()) j["failure"] = run.first_failure;
  return j;
}

}  // namespace bench
