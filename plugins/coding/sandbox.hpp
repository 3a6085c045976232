// One sandboxed Python interpreter: a process running driver.py inside its
// own user, PID, network, mount, IPC, UTS and cgroup namespaces, with a
// read-only view of the system, a private tmpfs scratch directory, rlimits,
// no_new_privs and a seccomp filter (see README.md, "Security model").
//
// Ownership and threads:
//  - LaunchSpec is built once per config (any thread) and is immutable after;
//    launch() reads it from the child after clone(), so it holds everything
//    the child needs as ready-made strings (the child never allocates).
//  - A Sandbox is owned by exactly one party at a time (the pool, then one
//    session) and used by one thread at a time. Its process dies with it.
//  - launch() should run on a long-lived thread (the pool's): the child asks
//    to be killed when that thread exits (PR_SET_PDEATHSIG).
#pragma once

#include "config.hpp"
#include "frame.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <sys/types.h>
#include <vector>

namespace coding {

// The sandbox could not be created (reason in what()).
struct SandboxError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct ExecResult {
    std::string stdout_text, stderr_text;
    int exit_code = 0;
    bool syntax_ok = true;
};

// Everything needed to start a sandbox, precomputed from a Config.
class LaunchSpec {
public:
    // Throws SandboxError if the config cannot work on this machine
    // (e.g. the interpreter does not exist).
    explicit LaunchSpec(const Config& cfg);

    const Config& config() const { return cfg_; }

    // One step of building the sandbox's root file system, relative to the
    // staging root. Plain data so the child can walk it without allocating.
    struct FsOp {
        enum Kind { dir, bind_dir, bind_file, bind_dev, symlink, file, tmpfs } kind;
        std::string path;    // inside the new root, absolute ("/usr")
        std::string source;  // bind source, symlink target, file content, tmpfs options
        unsigned long keep_flags = 0; // mount flags the source already has (must be kept)
        std::string staged;  // staging path (kStage + path), precomputed
    };

    const std::vector<FsOp>& fs_ops() const { return ops_; }

    std::vector<std::string> argv_, envp_;
    std::vector<char*> argv_ptrs, envp_ptrs;
    uid_t outer_uid = 0;
    gid_t outer_gid = 0;
    bool host_is_root = false;

private:
    void add_bind(const std::string& path, LaunchSpec::FsOp::Kind kind);
    Config cfg_;
    std::vector<FsOp> ops_;
};

class Sandbox {
public:
    // Starts the process; returns as soon as it runs (see wait_ready).
    // Throws SandboxError when the kernel refuses (clone, uid maps).
    static std::unique_ptr<Sandbox> launch(const LaunchSpec& spec);
    ~Sandbox(); // kills and reaps the process if still there

    // Waits for the driver's hello. Throws SandboxError naming the reason
    // (a setup step that failed inside the child, or the interpreter dying).
    void wait_ready(Clock::time_point deadline);

    enum class Outcome {
        ok,       // result filled in
        timeout,  // the deadline passed; the process was killed
        died,     // the interpreter exited or was killed; why says how
    };
    // Runs code. After timeout/died the sandbox is dead and must be replaced.
    // while_running, if given, is called once the code has been handed over,
    // so the caller's own work overlaps the execution.
    Outcome exec(const std::string& code, double timeout_s, ExecResult& result, std::string& why,
                 const std::function<void()>& while_running = {});

    // Parses code without running it: true/false for valid/invalid syntax,
    // or nothing if the interpreter failed to answer by the deadline (it is
    // then killed). Keeps the sandbox clean (dirty is not set).
    std::optional<bool> check_syntax(const std::string& code, Clock::time_point deadline);

    // Output the code wrote so far (fd 1 / fd 2 of the driver), read from the
    // host side; used to salvage output before killing a timed-out step.
    std::string peek_output(int fd, size_t cap) const;

    void kill();       // SIGKILL, don't wait
    void reap();       // wait for the process after kill()
    pid_t pid() const { return pid_; }

    bool dirty = false; // ran user code (reset must replace it)

private:
    Sandbox() = default;
    std::string describe_exit(); // reaps, and describes how the process ended
    pid_t pid_ = -1;
    int req_fd_ = -1, rep_fd_ = -1;
    bool reaped_ = false;
    int wait_status_ = 0;
    size_t max_reply_ = 0;
    std::string scratch_dir_; // unsandboxed mode only: host dir to remove
};

} // namespace coding
