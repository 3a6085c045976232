// coding_env end to end below the host: real CodingEnv instances, real pool,
// real sandboxed CPython processes. Every case checks what the code inside
// saw (its own report) and that the session still works afterwards.
#include "coding_env.hpp"
#include "pool.hpp"
#include "sandbox.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <atomic>
#include <fstream>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using coding::CodingEnv;
using envhost::json;

namespace {

json base_config(json extra = json::object()) {
    json c = {{"pool_size", 2}, {"timeout_s", 5}};
    c.update(extra);
    return c;
}

json step(CodingEnv& env, const std::string& code, std::optional<double> timeout = std::nullopt) {
    return env.step({{"code", code}}, timeout).to_json();
}

std::string out(const json& r) { return r["observation"]["stdout"].get<std::string>(); }
std::string err(const json& r) { return r["observation"]["stderr"].get<std::string>(); }
int code_of(const json& r) { return r["observation"]["exit_code"].get<int>(); }

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

class StopPools : public ::testing::Environment {
    void TearDown() override { CodingEnv::stop(); }
};
const auto* const kStopPools = ::testing::AddGlobalTestEnvironment(new StopPools);

} // namespace

// ---- section 7 behaviour ---------------------------------------------------------

TEST(CodingEnvBehaviour, ObservationShapeResetAndState) {
    CodingEnv env(base_config());
    const json r = env.reset(json::object()).to_json();
    EXPECT_EQ(r["observation"], json({{"stdout", ""}, {"stderr", ""}, {"exit_code", 0}}));
    EXPECT_EQ(r["reward"], 0.0);
    EXPECT_EQ(r["done"], false);
    const std::string ep1 = env.state()["episode_id"];
    const json s = step(env, "print('Hello')");
    EXPECT_EQ(s["observation"], json({{"stdout", "Hello\n"}, {"stderr", ""}, {"exit_code", 0}}));
    EXPECT_DOUBLE_EQ(s["reward"].get<double>(), 0.1);
    EXPECT_EQ(s["done"], false);
    for (int i = 0; i < 4; ++i) step(env, "x = 5");
    EXPECT_EQ(env.state(), json({{"episode_id", ep1}, {"step_count", 5}, {"last_exit_code", 0}}));
    env.reset(json::object());
    EXPECT_EQ(env.state()["step_count"], 0);
    EXPECT_NE(env.state()["episode_id"], ep1);
}

TEST(CodingEnvBehaviour, PersistenceAcrossStepsAndResetClearsIt) {
    CodingEnv env(base_config());
    env.reset(json::object());
    EXPECT_EQ(code_of(step(env, "test_var = 42\ndef f(a):\n    return a + 1\nimport math")), 0);
    EXPECT_EQ(out(step(env, "test_var * 2")), "84");
    EXPECT_EQ(out(step(env, "f(1)")), "2");
    EXPECT_EQ(out(step(env, "round(math.pi, 2)")), "3.14");
    step(env, "open('keep.txt', 'w').write('x')");
    env.reset(json::object());
    for (const char* name : {"test_var", "f", "math"}) {
        const json r = step(env, name);
        EXPECT_EQ(code_of(r), 1) << name;
        EXPECT_TRUE(contains(err(r), "NameError")) << err(r);
    }
    // Files of the last episode are gone too (a fresh scratch directory).
    EXPECT_EQ(out(step(env, "import os\nos.path.exists('keep.txt')")), "false");
    EXPECT_EQ(env.state()["last_exit_code"], 0);
}

TEST(CodingEnvBehaviour, RenderingOfTheLastExpression) {
    CodingEnv env(base_config());
    EXPECT_EQ(out(step(env, "{'a': [1, 2]}")), "{\"a\": [1, 2]}");
    EXPECT_EQ(out(step(env, "'text'")), "\"text\"");
    EXPECT_EQ(out(step(env, "print('one')\n2")), "one\n\n2");
    EXPECT_EQ(out(step(env, "None")), "");
    EXPECT_EQ(out(step(env, "{1, 2}")), "{1, 2}"); // not JSON: repr
    EXPECT_EQ(out(step(env, "x = 3")), "");
    EXPECT_EQ(out(step(env, "import sys\nsys.stdout.write('raw')\nsys.stdout.buffer.write(b'!')\nNone")), "raw!");
}

TEST(CodingEnvBehaviour, ErrorsKeepEarlierPrintsAndNameTheException) {
    CodingEnv env(base_config());
    json r = step(env, "print('before')\nx = 1 / 0");
    EXPECT_EQ(code_of(r), 1);
    EXPECT_EQ(out(r), "before\n");
    EXPECT_TRUE(contains(err(r), "Traceback (most recent call last)")) << err(r);
    EXPECT_TRUE(contains(err(r), "ZeroDivisionError")) << err(r);
    EXPECT_TRUE(contains(err(r), "x = 1 / 0")) << err(r); // the source line is shown
    EXPECT_FALSE(contains(err(r), "driver")) << err(r);    // no driver frames
    EXPECT_EQ(env.state()["last_exit_code"], 1);

    r = step(env, "print('unclosed");
    EXPECT_EQ(code_of(r), 1);
    EXPECT_TRUE(contains(err(r), "SyntaxError")) << err(r);
    EXPECT_DOUBLE_EQ(r["reward"].get<double>(), -0.1);

    r = step(env, "undefined_name");
    EXPECT_TRUE(contains(err(r), "NameError")) << err(r);
    r = step(env, "import sys\nsys.exit(3)");
    EXPECT_EQ(code_of(r), 3);
    EXPECT_EQ(out(step(env, "1 + 1")), "2"); // still the same live interpreter
}

TEST(CodingEnvBehaviour, RewardFollowsTheCodeText) {
    CodingEnv env(base_config());
    for (const char* c : {"x = 5", "print('Hello')", "y = 10 + 5"})
        EXPECT_DOUBLE_EQ(step(env, c)["reward"].get<double>(), 0.1) << c;
    for (const char* c : {"import os", "eval('1+1')", "exec('x=1')", "with open('f.txt', 'w') as f: pass"})
        EXPECT_DOUBLE_EQ(step(env, c)["reward"].get<double>(), -0.9) << c;
    std::string long_code = "import os\n";
    for (int i = 0; i < 50; ++i) long_code += "v" + std::to_string(i) + " = " + std::to_string(i) + "\n";
    EXPECT_DOUBLE_EQ(step(env, long_code)["reward"].get<double>(), -1.0);
}

TEST(CodingEnvBehaviour, ToolRunsInTheSameSession) {
    CodingEnv env(base_config());
    step(env, "shared = 7");
    EXPECT_EQ(env.call_tool("run_python", {{"code", "shared * 6"}}),
              json({{"stdout", "42"}, {"stderr", ""}, {"exit_code", 0}}));
    EXPECT_EQ(env.state()["step_count"], 1); // tool calls are not steps
    EXPECT_THROW(env.call_tool("run_python", json::object()), envhost::InvalidArgs);
    EXPECT_THROW(env.call_tool("run_python", {{"code", 1}}), envhost::InvalidArgs);
    EXPECT_THROW(env.call_tool("nope", {{"code", "1"}}), envhost::ToolNotFound);
}

TEST(CodingEnvBehaviour, AllowlistMimicsRestrictedMode) {
    CodingEnv env(base_config({{"allowed_modules", {"math", "re"}}}));
    EXPECT_EQ(out(step(env, "import math\nmath.floor(2.5)")), "2");
    const json r = step(env, "import subprocess");
    EXPECT_EQ(code_of(r), 1);
    EXPECT_TRUE(contains(err(r), "ImportError")) << err(r);
    EXPECT_TRUE(contains(err(r), "not allowed")) << err(r);
    EXPECT_EQ(code_of(step(env, "import json")), 1); // not listed either
    EXPECT_EQ(out(step(env, "import re\nbool(re.match('a', 'abc'))")), "true");
}

// ---- limits, crashes, timeouts ---------------------------------------------------

TEST(CodingEnvLimits, TimeoutKillsAndTheSessionContinuesFresh) {
    CodingEnv env(base_config({{"timeout_s", 1}}));
    step(env, "kept = 1");
    auto t0 = std::chrono::steady_clock::now();
    json r = step(env, "print('started', flush=True)\nwhile True:\n    pass");
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(took, 4.0);
    EXPECT_EQ(code_of(r), 124);
    EXPECT_TRUE(contains(err(r), "TimeoutError")) << err(r);
    EXPECT_TRUE(contains(err(r), "variables")) << err(r);
    EXPECT_EQ(out(r), "started\n"); // output before the limit is kept
    r = step(env, "kept");
    EXPECT_TRUE(contains(err(r), "NameError")) << err(r);
    EXPECT_EQ(out(step(env, "print(2)")), "2\n");
    // The per-step override (HTTP timeout_s) wins over the config.
    t0 = std::chrono::steady_clock::now();
    r = step(env, "import time\ntime.sleep(3)", 0.3);
    EXPECT_EQ(code_of(r), 124);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
    EXPECT_EQ(code_of(step(env, "import time\ntime.sleep(1.2)", 3.0)), 0);
}

TEST(CodingEnvLimits, InterpreterDeathIsReportedAndRecovered) {
    CodingEnv env(base_config());
    step(env, "x = 1");
    json r = step(env, "import os\nos._exit(3)");
    EXPECT_EQ(code_of(r), 3);
    EXPECT_TRUE(contains(err(r), "exited with status 3")) << err(r);
    EXPECT_TRUE(contains(err(r), "lost")) << err(r);
    r = step(env, "import ctypes\nctypes.string_at(0)");
    EXPECT_EQ(code_of(r), 128 + 11);
    EXPECT_TRUE(contains(err(r), "SIGSEGV")) << err(r);
    EXPECT_EQ(out(step(env, "'alive'")), "\"alive\"");
    EXPECT_EQ(env.state()["step_count"], 4);
}

TEST(CodingEnvLimits, MemoryBombIsContained) {
    CodingEnv env(base_config({{"memory_limit_mb", 256}}));
    json r = step(env, "x = bytearray(1024 ** 3)");
    EXPECT_NE(code_of(r), 0);
    EXPECT_TRUE(contains(err(r), "MemoryError")) << err(r);
    r = step(env, "a = []\nwhile True:\n    a.append(bytearray(10 ** 7))");
    EXPECT_NE(code_of(r), 0);
    EXPECT_TRUE(contains(err(r), "MemoryError") || contains(err(r), "InterpreterDied")) << err(r);
    EXPECT_EQ(out(step(env, "a = None\n6 * 7")), "42");
}

TEST(CodingEnvLimits, ForkBombIsContained) {
    CodingEnv env(base_config({{"max_processes", 16}}));
    json r = step(env, "import os\nwhile True:\n    os.fork()");
    EXPECT_EQ(code_of(r), 1);
    EXPECT_TRUE(contains(err(r), "BlockingIOError") || contains(err(r), "Resource temporarily unavailable")) << err(r);
    // Nothing started by the step outlives it; the session works.
    r = step(env, "import os\nsorted(int(p) for p in os.listdir('/proc') if p.isdigit())");
    EXPECT_EQ(out(r), "[1]") << err(r);
    EXPECT_EQ(out(step(env, "import subprocess\nsubprocess.run(['echo', 'child ok']).returncode")), "child ok\n\n0");
}

TEST(CodingEnvLimits, OutputFloodIsCappedWithAMarker) {
    CodingEnv env(base_config({{"output_limit_bytes", 4096}}));
    json r = step(env, "for i in range(100000):\n    print('x' * 100)");
    EXPECT_EQ(code_of(r), 0);
    EXPECT_LE(out(r).size(), 4096u + 200u);
    EXPECT_GE(out(r).size(), 4096u);
    EXPECT_TRUE(contains(out(r), "truncated")) << out(r).substr(out(r).size() - 200);
    r = step(env, "import sys, os\nos.write(2, b'e' * 100000)\nsys.stderr.write('tail')\n1/0");
    EXPECT_LE(err(r).size(), 4096u + 2000u);
    EXPECT_TRUE(contains(err(r), "truncated"));
    EXPECT_TRUE(contains(err(r), "ZeroDivisionError")); // the traceback survives the cap
    EXPECT_EQ(out(step(env, "'x' * 10")), "\"xxxxxxxxxx\"");
}

TEST(CodingEnvLimits, FileSizeAndScratchAreCapped) {
    CodingEnv env(base_config({{"max_file_size_mb", 1}, {"scratch_size_mb", 4}}));
    json r = step(env, "with open('big', 'wb') as f:\n    f.write(b'0' * (2 * 1024 * 1024))");
    EXPECT_EQ(code_of(r), 1);
    EXPECT_TRUE(contains(err(r), "File too large")) << err(r);
    r = step(env, "for i in range(8):\n    open(f'f{i}', 'wb').write(b'0' * 900000)");
    EXPECT_EQ(code_of(r), 1);
    EXPECT_TRUE(contains(err(r), "No space left")) << err(r);
}

// ---- isolation -------------------------------------------------------------------

TEST(CodingEnvSandbox, NoNetworkAtAll) {
    // A real listener on the host's loopback: the sandbox must not reach it.
    const int lfd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    ASSERT_EQ(::listen(lfd, 4), 0);
    socklen_t len = sizeof a;
    ::getsockname(lfd, reinterpret_cast<sockaddr*>(&a), &len);
    const int port = ntohs(a.sin_port);

    CodingEnv env(base_config());
    json r = step(env, "import socket\nsocket.create_connection(('127.0.0.1', " + std::to_string(port) + "), timeout=2)");
    EXPECT_EQ(code_of(r), 1);
    EXPECT_TRUE(contains(err(r), "OSError") || contains(err(r), "unreachable") || contains(err(r), "refused")) << err(r);
    r = step(env, "import socket\nsocket.getaddrinfo('example.com', 80)");
    EXPECT_EQ(code_of(r), 1);
    EXPECT_TRUE(contains(err(r), "gaierror")) << err(r);
    // Only a downed loopback interface exists.
    EXPECT_EQ(out(step(env, "import socket\nsorted(n for _, n in socket.if_nameindex())")), "[\"lo\"]");

    pollfd p{lfd, POLLIN, 0};
    EXPECT_EQ(::poll(&p, 1, 0), 0) << "the sandbox reached the host listener";
    ::close(lfd);
}

TEST(CodingEnvSandbox, FileSystemIsReadOnlyOutsideScratch) {
    char secret_path[] = "/tmp/coding-secret-XXXXXX";
    const int fd = ::mkstemp(secret_path);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, "TOPSECRET", 9), 9);
    ::close(fd);
    CodingEnv env(base_config());
    EXPECT_EQ(out(step(env, "import os\nos.getcwd()")), "\"/scratch\"");
    EXPECT_EQ(code_of(step(env, "open('/scratch/ok.txt', 'w').write('ok')\nopen('/tmp/ok2', 'w').write('ok')")), 0);
    for (const char* path : {"/usr/evil", "/etc/evil", "/evil", "/proc/evil", "/dev/evil"}) {
        const json r = step(env, std::string("open('") + path + "', 'w').write('x')");
        EXPECT_EQ(code_of(r), 1) << path;
        EXPECT_TRUE(contains(err(r), "Read-only file system") || contains(err(r), "Permission denied") ||
                    contains(err(r), "No such file"))
            << path << ": " << err(r);
    }
    json r = step(env, std::string("open('") + secret_path + "').read()");
    EXPECT_EQ(code_of(r), 1);
    EXPECT_TRUE(contains(err(r), "FileNotFoundError")) << err(r);
    EXPECT_FALSE(contains(out(r), "TOPSECRET"));
    // Nothing of the host beyond the system directories.
    r = step(env, "import os\nsorted(os.listdir('/'))");
    for (const char* hidden : {"\"root\"", "\"home\"", "\"work\"", "\"srv\"", "\"opt\"", "\"sys\"", "\"run\""})
        EXPECT_FALSE(contains(out(r), hidden)) << hidden << " in " << out(r);
    EXPECT_EQ(out(step(env, "import os\nos.listdir('/var')")), "[\"tmp\"]");
    EXPECT_FALSE(contains(out(step(env, "import os\nos.listdir('/etc')")), "shadow"));
    ::unlink(secret_path);
}

TEST(CodingEnvSandbox, ProcessesAndPrivileges) {
    CodingEnv env(base_config());
    EXPECT_EQ(out(step(env, "import os\nos.getpid(), os.getuid(), os.getgid()")), "[1, 1000, 1000]");
    // Only the sandbox's own processes are visible.
    EXPECT_EQ(out(step(env, "import os\nsorted(int(p) for p in os.listdir('/proc') if p.isdigit())")), "[1]");
    EXPECT_EQ(out(step(env, "int([l for l in open('/proc/self/status') if l.startswith('CapEff')][0].split()[1], 16)")), "0");
    EXPECT_EQ(out(step(env, "int([l for l in open('/proc/self/status') if l.startswith('NoNewPrivs')][0].split()[1])")), "1");
    // Only the protocol pipes and stdio: none of the host's descriptors.
    EXPECT_EQ(out(step(env, "import os\nsorted(int(f) for f in os.listdir('/proc/self/fd'))[:5]")), "[0, 1, 2, 3, 4]");
    EXPECT_EQ(out(step(env, "import os\nlen([f for f in os.listdir('/proc/self/fd') if int(f) > 4]) <= 3")), "true");
    // Killing PID 1 and the parent: signals to init are ignored, the parent is out of reach.
    const pid_t me = ::getpid();
    json r = step(env, "import os, signal\nos.kill(1, signal.SIGKILL)\nos.kill(os.getppid(), signal.SIGKILL)\n"
                       "os.kill(0, signal.SIGKILL)\n'survived'");
    EXPECT_EQ(::getpid(), me);
    EXPECT_EQ(out(step(env, "7")), "7");
    r = step(env, "import os, signal\nos.kill(" + std::to_string(me) + ", signal.SIGKILL)");
    EXPECT_EQ(code_of(r), 1);
    EXPECT_TRUE(contains(err(r), "ProcessLookupError")) << err(r);
    // seccomp: no new namespaces, no mount.
    r = step(env, "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                  "(libc.unshare(0x10000000), ctypes.get_errno() == 1, libc.mount(b'x', b'/scratch', b'tmpfs', 0, None))");
    EXPECT_EQ(out(r), "[-1, true, -1]") << err(r);
}

TEST(CodingEnvSandbox, SessionsCannotSeeEachOther) {
    CodingEnv a(base_config()), b(base_config());
    step(a, "secret = 'alpha'\nopen('/scratch/only_a.txt', 'w').write('alpha')");
    json r = step(b, "secret");
    EXPECT_TRUE(contains(err(r), "NameError"));
    r = step(b, "import os, glob\n(os.listdir('/scratch'), glob.glob('/proc/*/root/scratch/*'), glob.glob('/**/only_a.txt', recursive=False))");
    EXPECT_EQ(out(r), "[[], [], []]") << err(r);
    EXPECT_EQ(out(step(a, "open('/scratch/only_a.txt').read()")), "\"alpha\"");
}

TEST(CodingEnvSandbox, ManySessionsStepConcurrently) {
    constexpr int kSessions = 16, kSteps = 15;
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int s = 0; s < kSessions; ++s) {
        threads.emplace_back([s, &failures] {
            try {
                CodingEnv env(base_config());
                env.reset(json::object());
                step(env, "acc = " + std::to_string(s * 1000));
                for (int i = 0; i < kSteps; ++i) {
                    const json r = step(env, "acc += 1\nacc");
                    if (out(r) != std::to_string(s * 1000 + i + 1)) ++failures;
                }
            } catch (const std::exception& e) {
                ADD_FAILURE() << e.what();
                ++failures;
            }
        });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(failures.load(), 0);
}

// ---- configuration and failure handling ----------------------------------------------

TEST(CodingEnvConfig, InstalledPackagesAreImportable) {
    CodingEnv env(base_config());
    const json probe = step(env, "import importlib.util\nimportlib.util.find_spec('numpy') is not None");
    if (out(probe) != "true") GTEST_SKIP() << "numpy is not installed for /usr/bin/python3";
    EXPECT_EQ(out(step(env, "import numpy as np\nint(np.arange(10).sum())")), "45");
}

TEST(CodingEnvConfig, UnsandboxedModeStillRunsCode) {
    CodingEnv env(base_config({{"sandbox", false}}));
    json r = step(env, "import os\nos.getpid() != 1, os.getcwd().startswith('/tmp/envhost-coding-')");
    EXPECT_EQ(out(r), "[true, true]") << err(r);
    step(env, "v = 9");
    EXPECT_EQ(out(step(env, "v")), "9");
}

TEST(CodingEnvConfig, FailsClosedWhenTheSandboxCannotStart) {
    try {
        CodingEnv env(base_config({{"python", "/nonexistent/python3"}}));
        FAIL() << "created a session without an interpreter";
    } catch (const envhost::FactoryError& e) {
        EXPECT_TRUE(contains(e.what(), "/nonexistent/python3")) << e.what();
    }
    try {
        CodingEnv env(base_config({{"python", "/bin/false"}, {"pool_size", 0}}));
        FAIL() << "created a session whose interpreter cannot start";
    } catch (const envhost::FactoryError& e) {
        EXPECT_TRUE(contains(e.what(), "exited with status 1")) << e.what();
    }
    EXPECT_THROW(CodingEnv env(json({{"bogus", 1}})), envhost::FactoryError);
}

// Regression: the sandbox child is a clone() of a multithreaded host; libc's
// set*id wrappers deadlocked it when another thread was being created or
// torn down at that moment. Launch many sandboxes under thread churn.
TEST(CodingEnvPool, LaunchesSurviveThreadChurnInTheHost) {
    const coding::Config cfg = coding::Config::parse({{"pool_size", 0}});
    coding::Pool pool(cfg, nullptr);
    std::atomic<bool> stop{false};
    std::vector<std::thread> churn;
    for (int i = 0; i < 3; ++i)
        churn.emplace_back([&stop] {
            while (!stop) std::thread([] {}).join();
        });
    int launched = 0;
    for (int i = 0; i < 30; ++i) {
        try {
            pool.retire(pool.acquire(std::chrono::seconds(5)));
            ++launched;
        } catch (const std::exception& e) {
            ADD_FAILURE() << "launch " << i << ": " << e.what();
            break;
        }
    }
    stop = true;
    for (auto& t : churn) t.join();
    EXPECT_EQ(launched, 30);
}

// A sandbox that never ran user code goes back to the pool; one that did never does.
TEST(CodingEnvPool, OnlyUntouchedSandboxesAreReused) {
    const coding::Config cfg = coding::Config::parse({{"pool_size", 1}});
    coding::Pool pool(cfg, nullptr);
    auto first = pool.acquire(std::chrono::seconds(10));
    const pid_t untouched = first->pid();
    pool.give_back(std::move(first));
    auto again = pool.acquire(std::chrono::seconds(10));
    EXPECT_EQ(again->pid(), untouched);

    coding::ExecResult res;
    std::string why;
    ASSERT_EQ(again->exec("leftover = 1", 5, res, why), coding::Sandbox::Outcome::ok);
    const pid_t used = again->pid();
    pool.give_back(std::move(again));
    auto fresh = pool.acquire(std::chrono::seconds(10));
    EXPECT_NE(fresh->pid(), used);
    ASSERT_EQ(fresh->exec("print('leftover' in globals())", 5, res, why), coding::Sandbox::Outcome::ok);
    EXPECT_EQ(res.stdout_text, "False\n");
    pool.retire(std::move(fresh));
}
