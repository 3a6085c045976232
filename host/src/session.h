// A session: one environment instance living on its own worker thread.
//
// Every call on the instance (create, reset, step, state, tools, destroy)
// runs on that thread, in the order it was posted. I/O threads never run
// environment code: they post tasks and carry on (answering pings, serving
// other sessions).
//
// Ownership: shared. The worker thread holds a reference until it has
// destroyed the instance, so a Session outlives whoever closed it.
// Threads: every public function is thread-safe.
#pragma once

#include "plugin_library.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>

namespace envhost {

class Environment;

class Session : public std::enable_shared_from_this<Session> {
public:
    // A unit of work for the worker. It receives nullptr when the session was
    // closed before the task could run, and must then answer "closed".
    using Task = std::function<void(envhost_instance*)>;
    // shutdown: the whole server is stopping (not this session's doing).
    using ExpireHook = std::function<void(const std::string& reason, bool shutdown)>;

    Session(Environment& env, std::string id);
    ~Session();

    // Starts the worker thread and creates the instance there; returns when
    // creation finished. On failure the worker has already exited.
    CallResult start();

    // Queues a task; false (task dropped) once the session is closing.
    bool post(Task task);

    // Ends the session and destroys the instance on the worker once the queue
    // is empty. With drain, queued tasks still run with the instance (a client
    // that sent requests and then "close" gets its replies); without, they run
    // with nullptr. Idempotent; does not wait.
    void close(bool drain = false);

    // Ends the session from outside (idle reaping, close by another client,
    // shutdown). Runs the expire hook (which tells the client and closes its
    // connection) if one is set, else close().
    void expire(const std::string& reason, bool shutdown = false);
    void set_expire_hook(ExpireHook hook);
    // Runs on the worker once the instance is destroyed (the slot is free).
    void set_finished_hook(std::function<void()> hook);

    // Blocks until the instance is destroyed and the worker has exited.
    void wait_finished();

    const std::string& id() const { return id_; }
    bool closing() const;

    // Idle bookkeeping. A session with queued or running work is never idle.
    void touch();
    bool idle_for_at_least(std::chrono::steady_clock::duration d) const;

private:
    // The worker thread: creates the instance, runs tasks, destroys it. self
    // keeps the Session alive until the thread is done with it.
    void worker_main(std::shared_ptr<Session> self, std::promise<CallResult> created);
    void run_worker();

    Environment& env_;
    const std::string id_;

    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::deque<Task> queue_;
    bool closing_ = false;
    bool cancel_pending_ = false;
    bool busy_ = false;
    bool finished_ = false; // the instance is destroyed (or was never created)
    std::chrono::steady_clock::time_point last_active_;
    ExpireHook expire_hook_;
    std::function<void()> finished_hook_;
    envhost_instance* instance_ = nullptr; // touched only on the worker
};

} // namespace envhost
