// A pool of warm sandboxes, so that creating a session never waits for a
// cold interpreter start (≈25 ms) unless the pool has run dry.
//
// Ownership and threads: one Pool per distinct config, shared (shared_ptr) by
// the sessions using it. Its own thread launches every sandbox (the sandbox
// processes are tied to that thread's life through PR_SET_PDEATHSIG) and
// reaps retired ones. acquire() and retire() may be called from any thread.
#pragma once

#include "config.hpp"
#include "sandbox.hpp"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace coding {

class Pool {
public:
    using LogFn = std::function<void(int level, const std::string& message)>; // level: envhost_log_level

    // Throws SandboxError if the config cannot be turned into a LaunchSpec.
    Pool(const Config& cfg, LogFn log);
    ~Pool(); // stops the thread, kills the idle sandboxes
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;

    // A ready sandbox. Waits up to `wait` when the pool is empty; throws
    // SandboxError with the reason when none can be made.
    std::unique_ptr<Sandbox> acquire(Clock::duration wait = std::chrono::seconds(15));

    // Hands back a sandbox that is no longer wanted: killed now, reaped later
    // on the pool thread, so the caller does not wait.
    void retire(std::unique_ptr<Sandbox> sandbox);

    // Hands back a session's sandbox: one that never ran user code (not
    // dirty) goes to the front of the ready queue (up to twice the pool
    // size), as a client that connects and leaves without running code
    // changed nothing in it; any other is retired.
    void give_back(std::unique_ptr<Sandbox> sandbox);

    // Whether code is valid Python, decided by a sandbox of this pool that
    // never runs user code. A session's own interpreter answers too, but code
    // from its earlier steps may have tampered with it (and so with the -0.2
    // reward term). Nothing when no checker could answer in time.
    std::optional<bool> check_syntax(const std::string& code);

    const Config& config() const { return spec_.config(); }
    size_t ready_count();

private:
    void run();

    LaunchSpec spec_;
    LogFn log_;
    std::mutex mu_;
    std::condition_variable work_cv_;  // wakes the pool thread
    std::condition_variable ready_cv_; // wakes acquirers
    std::deque<std::unique_ptr<Sandbox>> ready_;
    std::vector<std::unique_ptr<Sandbox>> retired_;
    size_t waiting_ = 0;     // acquirers blocked on an empty pool
    uint64_t failures_ = 0;  // launches that failed so far
    std::string last_error_;
    bool stopping_ = false;
    std::thread thread_;
    std::mutex checker_mu_;               // one check at a time on the checker
    std::unique_ptr<Sandbox> checker_;    // a pooled sandbox kept for parsing only
};

} // namespace coding
