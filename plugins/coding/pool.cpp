#include "pool.hpp"

#include <envhost/plugin.h>

#include <algorithm>
#include <system_error>
#include <sys/wait.h>

namespace coding {

namespace {
constexpr auto kStartTimeout = std::chrono::seconds(10);
constexpr size_t kParallelLaunches = 2; // one per core on the target machine
} // namespace

Pool::Pool(const Config& cfg, LogFn log) : spec_(cfg), log_(std::move(log)) {
    try {
        thread_ = std::thread([this] { run(); });
    } catch (const std::system_error& e) {
        throw SandboxError(std::string("cannot start the sandbox pool thread: ") + e.what());
    }
}

Pool::~Pool() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        stopping_ = true;
    }
    work_cv_.notify_all();
    ready_cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    // Sandboxes die in their destructors (and already got PDEATHSIG).
    ready_.clear();
    retired_.clear();
}

size_t Pool::ready_count() {
    std::lock_guard<std::mutex> lk(mu_);
    return ready_.size();
}

std::unique_ptr<Sandbox> Pool::acquire(Clock::duration wait) {
    const auto deadline = Clock::now() + wait;
    std::unique_lock<std::mutex> lk(mu_);
    const uint64_t failures_before = failures_;
    ++waiting_;
    work_cv_.notify_one();
    std::unique_ptr<Sandbox> sb;
    while (!sb) {
        if (stopping_) break;
        if (!ready_.empty()) {
            sb = std::move(ready_.front());
            ready_.pop_front();
            // A pooled interpreter may have died while idle: never hand it out.
            int status = 0;
            if (::waitpid(sb->pid(), &status, WNOHANG | __WALL) != 0) {
                retired_.push_back(std::move(sb));
                continue;
            }
            break;
        }
        if (failures_ != failures_before) break; // a launch failed while we waited: report it
        if (ready_cv_.wait_until(lk, deadline) == std::cv_status::timeout && ready_.empty()) break;
    }
    --waiting_;
    work_cv_.notify_one(); // refill behind us
    if (sb) return sb;
    if (stopping_) throw SandboxError("coding_env is shutting down");
    if (!last_error_.empty() && failures_ != failures_before) throw SandboxError(last_error_);
    throw SandboxError("no sandbox became ready in time" + (last_error_.empty() ? "" : " (last error: " + last_error_ + ")"));
}

std::optional<bool> Pool::check_syntax(const std::string& code) {
    std::lock_guard<std::mutex> lk(checker_mu_);
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (!checker_) {
            try {
                checker_ = acquire(std::chrono::seconds(5));
            } catch (const SandboxError&) {
                return std::nullopt;
            }
        }
        if (auto ok = checker_->check_syntax(code, Clock::now() + std::chrono::seconds(5))) return ok;
        retire(std::move(checker_)); // died or hung: the next attempt takes a fresh one
    }
    return std::nullopt;
}

void Pool::give_back(std::unique_ptr<Sandbox> sandbox) {
    if (!sandbox) return;
    if (!sandbox->dirty) {
        std::lock_guard<std::mutex> lk(mu_);
        // Up to twice the pool size, so the spare capacity stays bounded.
        if (!stopping_ && ready_.size() < 2 * size_t(spec_.config().pool_size) + waiting_) {
            ready_.push_front(std::move(sandbox)); // the warmest first
            ready_cv_.notify_one();
            return;
        }
    }
    retire(std::move(sandbox));
}

void Pool::retire(std::unique_ptr<Sandbox> sandbox) {
    if (!sandbox) return;
    sandbox->kill();
    {
        std::lock_guard<std::mutex> lk(mu_);
        retired_.push_back(std::move(sandbox));
    }
    work_cv_.notify_one();
}

void Pool::run() {
    const size_t target = size_t(spec_.config().pool_size);
    bool backoff = false;
    std::unique_lock<std::mutex> lk(mu_);
    while (!stopping_) {
        auto need = [&] {
            const size_t want = target + waiting_;
            return want > ready_.size() ? want - ready_.size() : 0;
        };
        if (backoff && waiting_ == 0) {
            // After a failure, retry the background refill slowly.
            work_cv_.wait_for(lk, std::chrono::seconds(1), [&] { return stopping_ || waiting_ > 0; });
            backoff = false;
            continue;
        }
        work_cv_.wait(lk, [&] { return stopping_ || !retired_.empty() || need() > 0; });
        if (stopping_) break;
        std::vector<std::unique_ptr<Sandbox>> dead;
        dead.swap(retired_);
        const size_t batch = std::min(need(), kParallelLaunches);
        lk.unlock();
        dead.clear(); // reaps

        // Launch a few at once, then collect them: their start-up overlaps.
        std::vector<std::unique_ptr<Sandbox>> started;
        std::string error;
        for (size_t i = 0; i < batch; ++i) {
            try {
                started.push_back(Sandbox::launch(spec_));
            } catch (const std::exception& e) {
                error = e.what();
                break;
            }
        }
        std::vector<std::unique_ptr<Sandbox>> ready;
        for (auto& sb : started) {
            try {
                sb->wait_ready(Clock::now() + kStartTimeout);
                ready.push_back(std::move(sb));
            } catch (const std::exception& e) {
                error = e.what();
            }
        }
        started.clear();
        lk.lock();
        for (auto& sb : ready) ready_.push_back(std::move(sb));
        if (!error.empty()) {
            const bool new_error = error != last_error_;
            last_error_ = error;
            ++failures_;
            backoff = true;
            if (new_error && log_) {
                lk.unlock();
                log_(ENVHOST_LOG_ERROR, "coding_env: cannot start a sandbox: " + error);
                lk.lock();
            }
        }
        ready_cv_.notify_all();
    }
}

} // namespace coding
