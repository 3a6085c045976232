#include "environment.h"
#include "session.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

using namespace envhost;

namespace {

// Runs fn on the session's worker and returns its result.
template <class F>
auto on_worker(Session& s, F fn) {
    using R = decltype(fn(static_cast<envhost_instance*>(nullptr)));
    auto p = std::make_shared<std::promise<R>>();
    auto f = p->get_future();
    EXPECT_TRUE(s.post([p, fn](envhost_instance* inst) { p->set_value(fn(inst)); }));
    return f.get();
}

} // namespace

TEST(Session, RunsEveryCallOnItsOwnWorkerThread) {
    auto env = test::make_env(test::echo_plugin());
    auto opened = env->open_session();
    ASSERT_EQ(opened.status, Environment::OpenStatus::Ok);
    auto& s = *opened.session;
    const auto t1 = on_worker(s, [](envhost_instance*) { return std::this_thread::get_id(); });
    const auto t2 = on_worker(s, [](envhost_instance*) { return std::this_thread::get_id(); });
    EXPECT_EQ(t1, t2);
    EXPECT_NE(t1, std::this_thread::get_id());
    CallResult r = on_worker(s, [&](envhost_instance* inst) { return env->plugin().reset(inst, json::object()); });
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_EQ(r.value["reward"], 0.0);
    s.close();
    s.wait_finished();
    EXPECT_EQ(env->active_sessions(), 0u);
}

TEST(Session, CapacityIsEnforcedAndFreedWhenASessionEnds) {
    EnvSettings settings;
    settings.max_sessions = 2;
    auto env = test::make_env(test::echo_plugin(), settings);
    auto a = env->open_session();
    auto b = env->open_session();
    ASSERT_EQ(a.status, Environment::OpenStatus::Ok);
    ASSERT_EQ(b.status, Environment::OpenStatus::Ok);
    auto c = env->open_session();
    EXPECT_EQ(c.status, Environment::OpenStatus::Capacity);
    EXPECT_EQ(c.message, "Server at capacity: 2/2 sessions active. Cannot accept new connections.");
    EXPECT_EQ(c.data["max_sessions"], 2);
    EXPECT_EQ(env->find_session(b.session->id()), b.session);
    a.session->close();
    a.session->wait_finished();
    EXPECT_EQ(env->active_sessions(), 1u);
    EXPECT_EQ(env->open_session().status, Environment::OpenStatus::Ok);
}

TEST(Session, FactoryFailureIsReportedAndFreesTheSlot) {
    EnvSettings settings;
    settings.plugin_config = {{"fail_create", true}};
    auto env = test::make_env(test::test_plugin("test_env.so"), settings);
    auto r = env->open_session();
    EXPECT_EQ(r.status, Environment::OpenStatus::Factory);
    EXPECT_EQ(r.message, "Environment factory 'test_env' failed to create instance.");
    EXPECT_EQ(r.data["factory_name"], "test_env");
    EXPECT_EQ(env->active_sessions(), 0u);
}

TEST(Session, CloseWithoutDrainCancelsQueuedWork) {
    auto env = test::make_env(test::test_plugin("test_env.so"));
    auto s = env->open_session().session;
    std::promise<void> started;
    std::atomic<int> ran{0}, cancelled{0};
    s->post([&](envhost_instance* inst) {
        started.set_value();
        env->plugin().step(inst, {{"sleep_s", 0.3}}, 0);
        ++ran;
    });
    for (int i = 0; i < 3; ++i) s->post([&](envhost_instance* inst) { inst ? ++ran : ++cancelled; });
    started.get_future().wait();
    s->close(false);
    EXPECT_FALSE(s->post([](envhost_instance*) {}));
    s->wait_finished();
    EXPECT_EQ(ran.load(), 1);
    EXPECT_EQ(cancelled.load(), 3);
}

TEST(Session, CloseWithDrainRunsQueuedWork) {
    auto env = test::make_env(test::echo_plugin());
    auto s = env->open_session().session;
    std::atomic<int> ran{0};
    for (int i = 0; i < 5; ++i) s->post([&](envhost_instance* inst) { if (inst) ++ran; });
    s->close(true);
    s->wait_finished();
    EXPECT_EQ(ran.load(), 5);
}

TEST(Session, IdleSessionsExpireButBusyOnesDoNot) {
    EnvSettings settings;
    settings.idle_timeout_s = 0.1;
    auto env = test::make_env(test::test_plugin("test_env.so"), settings);
    auto idle = env->open_session().session;
    auto busy = env->open_session().session;
    std::string reason;
    busy->set_expire_hook([&](const std::string& r, bool) { reason = r; });
    busy->post([&](envhost_instance* inst) { env->plugin().step(inst, {{"sleep_s", 0.5}}, 0); });
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    env->expire_idle_sessions();
    idle->wait_finished(); // expired: no hook, so closed directly
    EXPECT_EQ(env->find_session(idle->id()), nullptr);
    EXPECT_TRUE(reason.empty()); // the busy one was left alone
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    env->expire_idle_sessions();
    EXPECT_NE(reason.find("idle"), std::string::npos);
    busy->close();
    busy->wait_finished();
}

TEST(Environment, RefusesMoreThanOneSessionOfANonConcurrencySafePlugin) {
    EnvSettings settings;
    settings.max_sessions = 2;
    Environment env(PluginLibrary::load(test::example_plugin("c_counter.so")), settings);
    std::string error;
    EXPECT_FALSE(env.start(error));
    EXPECT_EQ(error, "Environment 'c_counter' is not marked as SUPPORTS_CONCURRENT_SESSIONS. Cannot run with "
                     "max_concurrent_envs=2.");
}

TEST(Environment, NonConcurrencySafePluginNeverHasTwoLiveInstances) {
    auto env = test::make_env(test::example_plugin("c_counter.so"));
    auto s = env->open_session();
    ASSERT_EQ(s.status, Environment::OpenStatus::Ok);
    Environment::EphemeralStatus status;
    CallResult err;
    EXPECT_EQ(env->open_ephemeral(status, err), nullptr);
    EXPECT_EQ(status, Environment::EphemeralStatus::Busy);
    s.session->close();
    s.session->wait_finished();
    auto eph = env->open_ephemeral(status, err);
    ASSERT_NE(eph, nullptr);
    EXPECT_EQ(env->open_session().status, Environment::OpenStatus::Capacity);
}
