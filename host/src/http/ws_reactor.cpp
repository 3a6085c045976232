#include "http/ws_reactor.h"

#include <spdlog/spdlog.h>

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace envhost {

WsReactor::WsReactor(unsigned threads) {
    for (unsigned i = 0; i < std::max(1u, threads); ++i) {
        auto loop = std::make_unique<Loop>();
        loop->epfd = ::epoll_create1(EPOLL_CLOEXEC);
        loop->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (loop->epfd < 0 || loop->wake_fd < 0) throw std::system_error(errno, std::generic_category(), "epoll/eventfd");
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = loop->wake_fd;
        ::epoll_ctl(loop->epfd, EPOLL_CTL_ADD, loop->wake_fd, &ev);
        Loop* raw = loop.get();
        loop->thread = std::thread([this, raw] { run(*raw); });
        loops_.push_back(std::move(loop));
    }
}

WsReactor::~WsReactor() { stop(); }

void WsReactor::add(std::shared_ptr<Channel> channel) {
    Loop* loop;
    {
        std::lock_guard<std::mutex> lock(add_mu_);
        if (stopped_) return;
        loop = loops_[next_++ % loops_.size()].get();
    }
    const int fd = channel->fd();
    {
        std::lock_guard<std::mutex> lock(loop->mu);
        loop->channels[fd] = std::move(channel);
    }
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.fd = fd;
    if (::epoll_ctl(loop->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        spdlog::error("reactor: cannot watch socket {}: {}", fd, std::strerror(errno));
        std::lock_guard<std::mutex> lock(loop->mu);
        loop->channels.erase(fd);
    }
}

void WsReactor::drop(Loop& loop, int fd) {
    ::epoll_ctl(loop.epfd, EPOLL_CTL_DEL, fd, nullptr);
    std::shared_ptr<Channel> gone;
    {
        std::lock_guard<std::mutex> lock(loop.mu);
        auto it = loop.channels.find(fd);
        if (it == loop.channels.end()) return;
        gone = std::move(it->second);
        loop.channels.erase(it);
    }
    // `gone` is released outside the lock: it may close the socket.
}

void WsReactor::run(Loop& loop) {
    constexpr int kMaxEvents = 256;
    epoll_event events[kMaxEvents];
    auto next_tick = std::chrono::steady_clock::now();
    for (;;) {
        const int n = ::epoll_wait(loop.epfd, events, kMaxEvents, 250);
        if (n < 0 && errno != EINTR) {
            spdlog::critical("reactor: epoll_wait failed: {}", std::strerror(errno));
            return;
        }
        for (int i = 0; i < n; ++i) {
            const int fd = events[i].data.fd;
            if (fd == loop.wake_fd) return; // stop()
            std::shared_ptr<Channel> ch;
            {
                std::lock_guard<std::mutex> lock(loop.mu);
                auto it = loop.channels.find(fd);
                if (it != loop.channels.end()) ch = it->second;
            }
            if (!ch) continue;
            bool keep = false;
            try {
                keep = ch->on_readable();
            } catch (const std::exception& e) {
                spdlog::error("reactor: connection handler failed: {}", e.what());
            }
            if (!keep) drop(loop, fd);
        }
        const auto now = std::chrono::steady_clock::now();
        if (now >= next_tick) {
            next_tick = now + std::chrono::milliseconds(250);
            std::vector<std::shared_ptr<Channel>> all;
            {
                std::lock_guard<std::mutex> lock(loop.mu);
                all.reserve(loop.channels.size());
                for (auto& [fd, ch] : loop.channels) all.push_back(ch);
            }
            for (auto& ch : all)
                if (!ch->on_tick(now)) drop(loop, ch->fd());
        }
    }
}

void WsReactor::stop() {
    {
        std::lock_guard<std::mutex> lock(add_mu_);
        if (stopped_) return;
        stopped_ = true;
    }
    for (auto& loop : loops_) {
        const uint64_t one = 1;
        [[maybe_unused]] auto r = ::write(loop->wake_fd, &one, sizeof one);
    }
    for (auto& loop : loops_) {
        if (loop->thread.joinable()) loop->thread.join();
        {
            std::lock_guard<std::mutex> lock(loop->mu);
            loop->channels.clear();
        }
        ::close(loop->epfd);
        ::close(loop->wake_fd);
    }
}

} // namespace envhost
