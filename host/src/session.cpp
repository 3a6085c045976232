#include "session.h"

#include "environment.h"

#include <future>
#include <system_error>
#include <thread>

namespace envhost {

Session::Session(Environment& env, std::string id)
    : env_(env), id_(std::move(id)), last_active_(std::chrono::steady_clock::now()) {}

Session::~Session() = default;

CallResult Session::start() {
    std::promise<CallResult> created;
    auto created_future = created.get_future();
    try {
        std::thread(&Session::worker_main, this, shared_from_this(), std::move(created)).detach();
    } catch (const std::system_error& e) {
        // Out of threads (or memory): refuse this session, keep serving the rest.
        env_.session_finished(*this);
        std::lock_guard<std::mutex> lock(mu_);
        finished_ = true;
        return CallResult::failure(ENVHOST_ERROR_FACTORY, std::string("cannot start a worker thread: ") + e.what());
    }
    return created_future.get();
}

void Session::worker_main(std::shared_ptr<Session> /*keeps this alive*/, std::promise<CallResult> created) {
    CallResult error;
    instance_ = env_.create_instance(error);
    std::function<void()> hook;
    if (instance_) {
        error.ok = true;
        created.set_value(std::move(error));
        run_worker();
    } else {
        // Free the slot before the opener hears of the failure.
        env_.session_finished(*this);
        created.set_value(std::move(error));
    }
    {
        std::lock_guard<std::mutex> lock(mu_);
        finished_ = true;
        hook.swap(finished_hook_);
        cv_.notify_all();
    }
    if (hook) hook();
}

void Session::run_worker() {
    for (;;) {
        Task task;
        bool run_closed;
        {
            std::unique_lock<std::mutex> lock(mu_);
            cv_.wait(lock, [&] { return !queue_.empty() || closing_; });
            if (queue_.empty()) break; // closing and drained
            task = std::move(queue_.front());
            queue_.pop_front();
            run_closed = cancel_pending_;
            busy_ = true;
        }
        try {
            task(run_closed ? nullptr : instance_);
        } catch (...) {
            // Tasks report their own failures; nothing may escape the worker.
        }
        std::lock_guard<std::mutex> lock(mu_);
        busy_ = false;
        last_active_ = std::chrono::steady_clock::now();
    }
    env_.destroy_instance(instance_);
    instance_ = nullptr;
    env_.session_finished(*this);
}

bool Session::post(Task task) {
    std::lock_guard<std::mutex> lock(mu_);
    if (closing_) return false;
    queue_.push_back(std::move(task));
    last_active_ = std::chrono::steady_clock::now();
    cv_.notify_all();
    return true;
}

void Session::close(bool drain) {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
    if (!drain) cancel_pending_ = true;
    cv_.notify_all();
}

void Session::expire(const std::string& reason, bool shutdown) {
    ExpireHook hook;
    {
        std::lock_guard<std::mutex> lock(mu_);
        hook = expire_hook_;
    }
    if (hook) hook(reason, shutdown);
    else close();
}

void Session::set_expire_hook(ExpireHook hook) {
    std::lock_guard<std::mutex> lock(mu_);
    expire_hook_ = std::move(hook);
}

void Session::set_finished_hook(std::function<void()> hook) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (!finished_) {
            finished_hook_ = std::move(hook);
            return;
        }
    }
    hook(); // the worker is already done
}

void Session::wait_finished() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return finished_; });
}

bool Session::closing() const {
    std::lock_guard<std::mutex> lock(mu_);
    return closing_;
}

void Session::touch() {
    std::lock_guard<std::mutex> lock(mu_);
    last_active_ = std::chrono::steady_clock::now();
}

bool Session::idle_for_at_least(std::chrono::steady_clock::duration d) const {
    std::lock_guard<std::mutex> lock(mu_);
    return !busy_ && queue_.empty() && !closing_ && std::chrono::steady_clock::now() - last_active_ >= d;
}

} // namespace envhost
