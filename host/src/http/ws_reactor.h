// The I/O threads of all WebSocket sessions: a few epoll loops that read
// whatever arrives on any session's socket and hand complete messages on.
// With them a session costs one thread (its environment worker), not two.
//
// Ownership: the reactor holds a shared_ptr to every watched Channel until
// the channel asks to be dropped. Threads: add() and stop() from any thread;
// Channel callbacks run on the reactor thread that owns the channel's
// socket, never concurrently for one channel.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

namespace envhost {

class WsReactor {
public:
    class Channel {
    public:
        virtual ~Channel() = default;
        virtual int fd() const = 0;
        // The socket is readable (or closed). Return false to be dropped.
        virtual bool on_readable() = 0;
        // Called about every 250 ms; return false to be dropped (e.g. a
        // closing connection whose peer never answered).
        virtual bool on_tick(std::chrono::steady_clock::time_point now) = 0;
    };

    explicit WsReactor(unsigned threads);
    ~WsReactor();
    WsReactor(const WsReactor&) = delete;
    WsReactor& operator=(const WsReactor&) = delete;

    // Starts watching the channel's socket (spread over the threads).
    void add(std::shared_ptr<Channel> channel);
    // Stops the threads and drops every channel. Idempotent.
    void stop();

private:
    struct Loop {
        int epfd = -1;
        int wake_fd = -1; // eventfd: wakes epoll_wait for stop
        std::mutex mu;    // guards channels (add() runs on other threads)
        std::unordered_map<int, std::shared_ptr<Channel>> channels;
        std::thread thread;
    };
    void run(Loop& loop);
    void drop(Loop& loop, int fd);

    std::vector<std::unique_ptr<Loop>> loops_;
    std::mutex add_mu_;
    unsigned next_ = 0;
    bool stopped_ = false;
};

} // namespace envhost
