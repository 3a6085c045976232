#include "sandbox.hpp"

#include "driver_source.hpp"
#include "seccomp_filter.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace coding {

namespace {

// Where the child assembles the new root before pivot_root. A tmpfs is
// mounted over it in the child's private mount namespace only, so bind
// sources must not live below it (LaunchSpec checks).
constexpr const char* kStage = "/tmp";
constexpr uid_t kInsideId = 1000; // uid and gid of the code inside the sandbox

// ---- child-side helpers: syscalls only, no allocation, no libc locks -------
// The child of clone() in a multithreaded host is a copy of one thread: any
// lock another thread held at that moment stays held forever in the child.

struct ChildCtx {
    int rep_fd;
};

size_t cat(char* buf, size_t at, size_t cap, const char* s) {
    while (*s && at + 1 < cap) buf[at++] = *s++;
    buf[at] = 0;
    return at;
}

// Reports a failed setup step to the plugin as a frame, then exits.
[[noreturn]] void child_fail(const ChildCtx& c, const char* what, const char* path) {
    const int err = errno;
    char msg[768];
    size_t n = 0;
    n = cat(msg, n, sizeof msg, "{\"setup_error\":\"");
    const char* parts[] = {what, path ? " " : "", path ? path : "", ": ", strerrorname_np(err) ? strerrorname_np(err) : "error"};
    for (const char* p : parts)
        for (; *p && n + 3 < sizeof msg; ++p) {
            if (*p == '"' || *p == '\\') msg[n++] = '\\';
            msg[n++] = (static_cast<unsigned char>(*p) < 0x20) ? '?' : *p;
        }
    n = cat(msg, n, sizeof msg, "\"}");
    unsigned char hdr[4] = {0, 0, static_cast<unsigned char>(n >> 8), static_cast<unsigned char>(n)};
    if (::write(c.rep_fd, hdr, 4) == 4) (void)!::write(c.rep_fd, msg, n);
    _exit(126);
}

// mkdir -p for a path that must not exist as a file.
bool mkdirs(const char* path) {
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (n >= sizeof buf) return false;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; ++i) {
        if (buf[i] == '/' || buf[i] == 0) {
            const char saved = buf[i];
            buf[i] = 0;
            if (::mkdir(buf, 0755) != 0 && errno != EEXIST) return false;
            buf[i] = saved;
        }
    }
    return true;
}

bool parent_dirs(const char* path) {
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (n >= sizeof buf) return false;
    memcpy(buf, path, n + 1);
    char* slash = strrchr(buf, '/');
    if (!slash || slash == buf) return true;
    *slash = 0;
    return mkdirs(buf);
}

void write_file(const ChildCtx& c, const char* path, const std::string& content) {
    if (!parent_dirs(path)) child_fail(c, "mkdir", path);
    const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) child_fail(c, "create", path);
    if (!content.empty() && ::write(fd, content.data(), content.size()) != ssize_t(content.size()))
        child_fail(c, "write", path);
    ::close(fd);
}

void build_root(const ChildCtx& c, const LaunchSpec& spec) {
    for (const auto& op : spec.fs_ops()) {
        const char* dst = op.staged.c_str();
        switch (op.kind) {
        case LaunchSpec::FsOp::dir:
            if (!mkdirs(dst)) child_fail(c, "mkdir", dst);
            break;
        case LaunchSpec::FsOp::symlink:
            if (!parent_dirs(dst)) child_fail(c, "mkdir", dst);
            if (::symlink(op.source.c_str(), dst) != 0) child_fail(c, "symlink", dst);
            break;
        case LaunchSpec::FsOp::file:
            write_file(c, dst, op.source);
            break;
        case LaunchSpec::FsOp::tmpfs:
            if (!mkdirs(dst)) child_fail(c, "mkdir", dst);
            if (::mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV, op.source.c_str()) != 0)
                child_fail(c, "mount tmpfs", dst);
            break;
        case LaunchSpec::FsOp::bind_dir:
        case LaunchSpec::FsOp::bind_file:
        case LaunchSpec::FsOp::bind_dev: {
            if (op.kind == LaunchSpec::FsOp::bind_dir) {
                if (!mkdirs(dst)) child_fail(c, "mkdir", dst);
            } else {
                write_file(c, dst, std::string());
            }
            if (::mount(op.source.c_str(), dst, nullptr, MS_BIND | MS_REC, nullptr) != 0)
                child_fail(c, "bind", op.source.c_str());
            if (op.kind == LaunchSpec::FsOp::bind_dev) break; // devices stay writable (/dev/null)
            // Read-only, keeping the flags the kernel locks on inherited mounts.
            const unsigned long fl = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | op.keep_flags;
            if (::mount(nullptr, dst, nullptr, fl, nullptr) != 0)
                child_fail(c, "remount read-only", op.source.c_str());
            break;
        }
        }
    }
}

void set_limit(const ChildCtx& c, int res, rlim_t soft, rlim_t hard, const char* name) {
    struct rlimit rl {soft, hard};
    if (::setrlimit(res, &rl) != 0) child_fail(c, "setrlimit", name);
}

void apply_limits(const ChildCtx& c, const Config& cfg, bool sandboxed) {
    const rlim_t mib = 1024 * 1024;
    set_limit(c, RLIMIT_AS, rlim_t(cfg.memory_limit_mb) * mib, rlim_t(cfg.memory_limit_mb) * mib, "RLIMIT_AS");
    // The driver moves the soft CPU limit forward before each step.
    set_limit(c, RLIMIT_CPU, rlim_t(cfg.cpu_time_limit_s) + 5, RLIM_INFINITY, "RLIMIT_CPU");
    set_limit(c, RLIMIT_FSIZE, rlim_t(cfg.max_file_size_mb) * mib, rlim_t(cfg.max_file_size_mb) * mib, "RLIMIT_FSIZE");
    set_limit(c, RLIMIT_NOFILE, rlim_t(cfg.max_open_files), rlim_t(cfg.max_open_files), "RLIMIT_NOFILE");
    set_limit(c, RLIMIT_CORE, 0, 0, "RLIMIT_CORE");
    // NPROC is counted per user namespace and uid (Linux >= 5.14), so inside
    // our own user namespace it bounds this session alone. Without the
    // sandbox it would count the host's own threads: leave it alone there.
    if (sandboxed)
        set_limit(c, RLIMIT_NPROC, rlim_t(cfg.max_processes), rlim_t(cfg.max_processes), "RLIMIT_NPROC");
}

// Puts the protocol pipes on fds 3 and 4, /dev/null on 0-2, closes the rest
// (the host's sockets and files must never reach the sandbox).
void setup_fds(ChildCtx& c, int req, int rep) {
    const int req_hi = ::fcntl(req, F_DUPFD, 100), rep_hi = ::fcntl(rep, F_DUPFD, 100);
    if (req_hi < 0 || rep_hi < 0) child_fail(c, "dup", nullptr);
    c.rep_fd = rep_hi;
    if (::dup2(req_hi, 3) < 0 || ::dup2(rep_hi, 4) < 0) child_fail(c, "dup2", nullptr);
    c.rep_fd = 4;
    ::close_range(5, ~0U, 0);
    const int null_fd = ::open("/dev/null", O_RDWR);
    if (null_fd < 0) child_fail(c, "open", "/dev/null");
    for (int fd = 0; fd < 3; ++fd)
        if (null_fd != fd) ::dup2(null_fd, fd);
    if (null_fd > 2) ::close(null_fd);
}

[[noreturn]] void child_main(const LaunchSpec& spec, int req, int rep, bool sandboxed, const char* workdir) {
    ChildCtx c{rep};
    const Config& cfg = spec.config();
    // The host blocks its termination signals in every thread (its main thread
    // takes them synchronously) and ignores SIGPIPE; both survive execve, so
    // give the interpreter a clean slate.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    setup_fds(c, req, rep);
    ::setsid(); // own session and process group: kill(0, ...) stays inside
    ::umask(022); // the host's umask (e.g. systemd's 0077) must not hide our skeleton files

    if (sandboxed) {
        // Wait until the parent has written our uid/gid maps.
        char go = 0;
        if (::read(3, &go, 1) != 1 || go != 'G') _exit(125);
        // Raw syscalls, not the libc wrappers: those broadcast the change to
        // every thread libc believes exists (set*id is process-wide in POSIX)
        // under a lock that another host thread may have held at clone time,
        // which deadlocks this single-threaded child.
        if (spec.host_is_root && ::syscall(SYS_setgroups, 0, nullptr) != 0) child_fail(c, "setgroups", nullptr);
        // Become the sandbox user first (files we create must be owned by a
        // mapped id); the namespace's capabilities stay until execve.
        if (::syscall(SYS_setresgid, kInsideId, kInsideId, kInsideId) != 0) child_fail(c, "setresgid", nullptr);
        if (::syscall(SYS_setresuid, kInsideId, kInsideId, kInsideId) != 0) child_fail(c, "setresuid", nullptr);
        if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) child_fail(c, "make / private", nullptr);
        if (::mount("tmpfs", kStage, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") != 0)
            child_fail(c, "mount root tmpfs", kStage);
        build_root(c, spec);
        // A /proc for our own PID namespace (we are its PID 1).
        char proc[64] = {0};
        cat(proc, cat(proc, 0, sizeof proc, kStage), sizeof proc, "/proc");
        if (!mkdirs(proc)) child_fail(c, "mkdir", proc);
        if (::mount("proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
            child_fail(c, "mount", "/proc");
        if (::chdir(kStage) != 0) child_fail(c, "chdir", kStage);
        if (::syscall(SYS_pivot_root, ".", ".") != 0) child_fail(c, "pivot_root", nullptr);
        if (::umount2(".", MNT_DETACH) != 0) child_fail(c, "detach old root", nullptr);
        if (::chdir("/") != 0) child_fail(c, "chdir", "/");
        if (::mount(nullptr, "/", nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr) != 0)
            child_fail(c, "remount / read-only", nullptr);
        ::sethostname("sandbox", 7);
        if (::chdir("/scratch") != 0) child_fail(c, "chdir", "/scratch");
    } else {
        if (::chdir(workdir) != 0) child_fail(c, "chdir", workdir);
    }

    apply_limits(c, cfg, sandboxed);
    if (sandboxed) {
        // No capability survives execve: drop the bounding set too, so no
        // file capability could ever grant one back.
        for (int cap = 0; cap <= 63; ++cap) ::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
        ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    }
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) child_fail(c, "no_new_privs", nullptr);
    // After the credential changes (they clear it): die with the pool thread.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (sandboxed && !install_seccomp_filter()) child_fail(c, "seccomp", nullptr);
    ::execve(spec.argv_ptrs[0], spec.argv_ptrs.data(), spec.envp_ptrs.data());
    child_fail(c, "execve", spec.argv_ptrs[0]);
}

unsigned long locked_flags(const std::string& path) {
    struct statvfs sv {};
    if (::statvfs(path.c_str(), &sv) != 0) return 0;
    unsigned long f = 0;
    if (sv.f_flag & ST_NOEXEC) f |= MS_NOEXEC;
    if (sv.f_flag & ST_NOATIME) f |= MS_NOATIME;
    if (sv.f_flag & ST_NODIRATIME) f |= MS_NODIRATIME;
    if (sv.f_flag & ST_RELATIME) f |= MS_RELATIME;
    return f;
}

bool under(const std::string& path, const std::string& dir) {
    return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/');
}

std::string real(const std::string& p) {
    char buf[PATH_MAX];
    return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

std::string parent_of(const std::string& p) {
    const auto s = p.rfind('/');
    return s == 0 || s == std::string::npos ? "/" : p.substr(0, s);
}

void write_proc_file(pid_t pid, const char* name, const std::string& content) {
    const std::string path = "/proc/" + std::to_string(pid) + "/" + name;
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) throw SandboxError("cannot open " + path + ": " + strerror(errno));
    const ssize_t n = ::write(fd, content.data(), content.size());
    const int err = errno;
    ::close(fd);
    if (n != ssize_t(content.size()))
        throw SandboxError("cannot write " + path + " ('" + content.substr(0, content.size() - 1) + "'): " + strerror(err));
}

} // namespace

// ---- LaunchSpec -------------------------------------------------------------

void LaunchSpec::add_bind(const std::string& path, FsOp::Kind kind) {
    for (const auto& op : ops_)
        if ((op.kind == FsOp::bind_dir || op.kind == FsOp::symlink) && under(path, op.path)) return;
    ops_.push_back({kind, path, path, locked_flags(path), kStage + path});
}

LaunchSpec::LaunchSpec(const Config& cfg) : cfg_(cfg) {
    struct stat st {};
    if (::stat(cfg.python.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || !(st.st_mode & 0111))
        throw SandboxError("python interpreter '" + cfg.python + "' is not an executable file");
    host_is_root = ::geteuid() == 0;
    // As root, run the code as nobody: never as a uid that owns host files.
    outer_uid = host_is_root ? 65534 : ::geteuid();
    outer_gid = host_is_root ? 65534 : ::getegid();

    const nlohmann::json settings = {{"output_limit", cfg.output_limit_bytes},
                                     {"cpu_s", cfg.cpu_time_limit_s},
                                     {"allowed_modules", cfg.allowed_modules ? nlohmann::json(*cfg.allowed_modules)
                                                                             : nlohmann::json(nullptr)}};
    argv_ = {cfg.python, "-I", "-B", "-c", kDriverSource, settings.dump()};
    envp_ = {"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "LC_ALL=C.UTF-8",
             "OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1", "MKL_NUM_THREADS=1"};

    if (cfg.sandbox) {
        envp_.push_back("HOME=/scratch");
        envp_.push_back("TMPDIR=/scratch");
        // The system, read-only. Merged-/usr systems have symlinks for /bin etc.
        for (const char* top : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
            struct stat ls {};
            if (::lstat(top, &ls) != 0) continue;
            if (S_ISLNK(ls.st_mode)) {
                char target[PATH_MAX];
                const ssize_t n = ::readlink(top, target, sizeof target - 1);
                if (n > 0) ops_.push_back({FsOp::symlink, top, std::string(target, size_t(n)), 0, kStage + std::string(top)});
            } else if (S_ISDIR(ls.st_mode)) {
                add_bind(top, FsOp::bind_dir);
            }
        }
        add_bind("/usr", FsOp::bind_dir);
        // Only the parts of /etc that the loader and Python use; users,
        // hosts and resolver files are our own.
        for (const char* f : {"/etc/ld.so.cache", "/etc/localtime", "/etc/mime.types"}) {
            if (::stat(f, &st) == 0 && S_ISREG(st.st_mode)) add_bind(f, FsOp::bind_file);
        }
        for (const char* d : {"/etc/alternatives", "/etc/ssl", "/etc/python3", "/etc/python3.11", "/etc/python3.12",
                              "/etc/python3.13"}) {
            if (::stat(d, &st) == 0 && S_ISDIR(st.st_mode)) add_bind(d, FsOp::bind_dir);
        }
        ops_.push_back({FsOp::file, "/etc/passwd", "sandbox:x:1000:1000:sandbox:/scratch:/bin/sh\n", 0, ""});
        ops_.push_back({FsOp::file, "/etc/group", "sandbox:x:1000:\n", 0, ""});
        ops_.push_back({FsOp::file, "/etc/hosts", "127.0.0.1 localhost\n::1 localhost\n", 0, ""});
        ops_.push_back({FsOp::file, "/etc/hostname", "sandbox\n", 0, ""});
        ops_.push_back({FsOp::file, "/etc/resolv.conf", "", 0, ""});
        // An interpreter outside /usr (pyenv, a venv, /opt): its prefix too.
        for (const std::string& p : {cfg.python, real(cfg.python)}) {
            if (p.empty()) continue;
            const std::string prefix = parent_of(parent_of(p));
            if (under(prefix, kStage)) throw SandboxError("python interpreter must not live under " + std::string(kStage));
            if (prefix != "/") add_bind(prefix, FsOp::bind_dir);
        }
        for (const auto& extra : cfg.extra_ro_paths) {
            if (under(extra, kStage)) throw SandboxError("extra_ro_paths must not be under " + std::string(kStage));
            if (::stat(extra.c_str(), &st) != 0) throw SandboxError("extra_ro_paths: '" + extra + "' does not exist");
            add_bind(extra, S_ISDIR(st.st_mode) ? FsOp::bind_dir : FsOp::bind_file);
        }
        for (const char* dev : {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"})
            ops_.push_back({FsOp::bind_dev, dev, dev, 0, kStage + std::string(dev)});
        ops_.push_back({FsOp::symlink, "/dev/fd", "/proc/self/fd", 0, ""});
        ops_.push_back({FsOp::symlink, "/dev/stdin", "/proc/self/fd/0", 0, ""});
        ops_.push_back({FsOp::symlink, "/dev/stdout", "/proc/self/fd/1", 0, ""});
        ops_.push_back({FsOp::symlink, "/dev/stderr", "/proc/self/fd/2", 0, ""});
        // The only writable place: a size-capped tmpfs, also reachable as /tmp.
        ops_.push_back({FsOp::tmpfs, "/scratch",
                        "size=" + std::to_string(cfg.scratch_size_mb) + "m,mode=0700,uid=1000,gid=1000", 0, ""});
        ops_.push_back({FsOp::symlink, "/tmp", "/scratch", 0, ""});
        ops_.push_back({FsOp::symlink, "/var/tmp", "/scratch", 0, ""});
        for (auto& op : ops_)
            if (op.staged.empty()) op.staged = kStage + op.path;
    }
    for (auto& a : argv_) argv_ptrs.push_back(a.data());
    argv_ptrs.push_back(nullptr);
    for (auto& e : envp_) envp_ptrs.push_back(e.data());
    envp_ptrs.push_back(nullptr);
}

// ---- Sandbox ------------------------------------------------------------------

std::unique_ptr<Sandbox> Sandbox::launch(const LaunchSpec& spec) {
    const Config& cfg = spec.config();
    int req[2], rep[2];
    if (::pipe2(req, O_CLOEXEC) != 0) throw SandboxError(std::string("pipe: ") + strerror(errno));
    if (::pipe2(rep, O_CLOEXEC) != 0) {
        ::close(req[0]);
        ::close(req[1]);
        throw SandboxError(std::string("pipe: ") + strerror(errno));
    }
    std::unique_ptr<Sandbox> sb(new Sandbox());
    sb->max_reply_ = size_t(cfg.output_limit_bytes) * 8 + (1 << 20);

    // Unsandboxed: a private working directory on the host instead of a tmpfs.
    std::string workdir;
    if (!cfg.sandbox) {
        char tmpl[] = "/tmp/envhost-coding-XXXXXX";
        if (!::mkdtemp(tmpl)) throw SandboxError(std::string("mkdtemp: ") + strerror(errno));
        workdir = tmpl;
        sb->scratch_dir_ = workdir;
    }

    // clone() with fork semantics (no stack argument): the child gets a copy
    // of this address space and only makes syscalls before execve.
    unsigned long flags = SIGCHLD;
    if (cfg.sandbox)
        flags |= CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS |
                 CLONE_NEWCGROUP;
    const long pid = ::syscall(SYS_clone, flags, nullptr, nullptr, nullptr, nullptr);
    if (pid == 0) child_main(spec, req[0], rep[1], cfg.sandbox, workdir.c_str());
    const int clone_err = errno;
    ::close(req[0]);
    ::close(rep[1]);
    sb->req_fd_ = req[1];
    sb->rep_fd_ = rep[0];
    if (pid < 0) {
        throw SandboxError(std::string("clone(") + (cfg.sandbox ? "new user/pid/net/mount namespaces" : "") +
                           ") failed: " + strerror(clone_err) +
                           (clone_err == EPERM || clone_err == ENOSPC
                                ? " (are unprivileged user namespaces enabled? see README)"
                                : ""));
    }
    sb->pid_ = pid_t(pid);
    ::fcntl(sb->req_fd_, F_SETFL, O_NONBLOCK);
    ::fcntl(sb->rep_fd_, F_SETFL, O_NONBLOCK);
    if (cfg.sandbox) {
        const std::string uid_line = std::to_string(kInsideId) + " " + std::to_string(spec.outer_uid) + " 1\n";
        const std::string gid_line = std::to_string(kInsideId) + " " + std::to_string(spec.outer_gid) + " 1\n";
        write_proc_file(sb->pid_, "uid_map", uid_line);
        if (!spec.host_is_root) write_proc_file(sb->pid_, "setgroups", "deny\n");
        write_proc_file(sb->pid_, "gid_map", gid_line);
        const char go = 'G';
        if (::write(sb->req_fd_, &go, 1) != 1) throw SandboxError("sandbox process vanished during setup");
    }
    return sb;
}

Sandbox::~Sandbox() {
    kill();
    reap();
    if (req_fd_ >= 0) ::close(req_fd_);
    if (rep_fd_ >= 0) ::close(rep_fd_);
    if (!scratch_dir_.empty()) {
        ::nftw(scratch_dir_.c_str(),
               [](const char* p, const struct stat*, int, struct FTW*) { return ::remove(p); }, 16,
               FTW_DEPTH | FTW_PHYS);
    }
}

void Sandbox::kill() {
    if (pid_ > 0 && !reaped_) ::kill(pid_, SIGKILL);
}

void Sandbox::reap() {
    if (pid_ <= 0 || reaped_) return;
    while (::waitpid(pid_, &wait_status_, __WALL) < 0) {
        if (errno != EINTR) break; // ECHILD: someone else reaped it (SIGCHLD ignored)
    }
    reaped_ = true;
}

std::string Sandbox::describe_exit() {
    // EOF on the reply pipe: the process is gone or going; wait for it.
    reap();
    if (WIFSIGNALED(wait_status_)) {
        const int sig = WTERMSIG(wait_status_);
        std::string name = sigabbrev_np(sig) ? std::string("SIG") + sigabbrev_np(sig) : std::to_string(sig);
        std::string why = "the Python interpreter was killed by signal " + std::to_string(sig) + " (" + name + ")";
        if (sig == SIGSEGV || sig == SIGBUS) why += ": it crashed";
        else if (sig == SIGKILL) why += ": it was killed (e.g. for exceeding a memory or CPU limit)";
        else if (sig == SIGXCPU) why += ": it exceeded its CPU time limit";
        return why;
    }
    if (WIFEXITED(wait_status_))
        return "the Python interpreter exited with status " + std::to_string(WEXITSTATUS(wait_status_));
    return "the Python interpreter ended";
}

void Sandbox::wait_ready(Clock::time_point deadline) {
    std::string frame;
    const ReadStatus st = read_frame(rep_fd_, frame, deadline, 64 * 1024);
    if (st == ReadStatus::timeout) {
        kill();
        throw SandboxError("the sandboxed interpreter did not start in time");
    }
    if (st != ReadStatus::ok) throw SandboxError("sandbox setup failed: " + describe_exit());
    nlohmann::json hello = nlohmann::json::parse(frame, nullptr, false);
    if (hello.is_object() && hello.contains("setup_error")) {
        reap();
        throw SandboxError("sandbox setup failed: " + hello["setup_error"].get<std::string>());
    }
    if (!hello.is_object() || !hello.value("ready", false)) {
        kill();
        throw SandboxError("sandboxed interpreter sent an unexpected greeting");
    }
}

Sandbox::Outcome Sandbox::exec(const std::string& code, double timeout_s, ExecResult& result, std::string& why,
                               const std::function<void()>& while_running) {
    dirty = true;
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
    const nlohmann::json req = {{"op", "exec"}, {"code", code}};
    if (!write_frame(req_fd_, req.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), deadline)) {
        if (Clock::now() >= deadline) {
            kill();
            return Outcome::timeout;
        }
        kill();
        why = describe_exit();
        return Outcome::died;
    }
    if (while_running) while_running();
    std::string frame;
    switch (read_frame(rep_fd_, frame, deadline, max_reply_)) {
    case ReadStatus::ok: break;
    case ReadStatus::timeout: return Outcome::timeout; // caller salvages output, then kills
    case ReadStatus::too_large:
        kill();
        why = "the interpreter sent an oversized reply and was stopped";
        reap();
        return Outcome::died;
    default:
        why = describe_exit();
        return Outcome::died;
    }
    nlohmann::json rep = nlohmann::json::parse(frame, nullptr, false);
    if (!rep.is_object() || !rep.contains("stdout") || !rep["stdout"].is_string() || !rep.contains("stderr") ||
        !rep["stderr"].is_string() || !rep.contains("exit_code") || !rep["exit_code"].is_number_integer()) {
        // User code can write to the reply pipe; a garbled reply ends the interpreter.
        kill();
        reap();
        why = "the interpreter's reply was corrupted (did the code write to its protocol pipe?)";
        return Outcome::died;
    }
    result.stdout_text = rep["stdout"].get<std::string>();
    result.stderr_text = rep["stderr"].get<std::string>();
    result.exit_code = rep["exit_code"].get<int>();
    result.syntax_ok = rep.value("syntax_ok", true);
    return Outcome::ok;
}

std::string Sandbox::peek_output(int fd, size_t cap) const {
    if (pid_ <= 0 || reaped_) return {};
    const std::string path = "/proc/" + std::to_string(pid_) + "/fd/" + std::to_string(fd);
    const int f = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (f < 0) return {};
    std::string out;
    struct stat st {};
    if (::fstat(f, &st) == 0 && S_ISREG(st.st_mode)) { // only our memfd, never a pipe/device
        out.resize(std::min<size_t>(size_t(st.st_size), cap));
        const ssize_t n = ::pread(f, out.data(), out.size(), 0);
        out.resize(n > 0 ? size_t(n) : 0);
        if (size_t(st.st_size) > cap) out += "\n[envhost: output truncated: exceeded " + std::to_string(cap) + " bytes]\n";
    }
    ::close(f);
    return out;
}

} // namespace coding

namespace coding {

std::optional<bool> Sandbox::check_syntax(const std::string& code, Clock::time_point deadline) {
    const nlohmann::json req = {{"op", "check"}, {"code", code}};
    std::string frame;
    if (!write_frame(req_fd_, req.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), deadline) ||
        read_frame(rep_fd_, frame, deadline, max_reply_) != ReadStatus::ok) {
        kill();
        return std::nullopt;
    }
    const nlohmann::json rep = nlohmann::json::parse(frame, nullptr, false);
    if (!rep.is_object() || !rep.contains("syntax_ok") || !rep["syntax_ok"].is_boolean()) {
        kill();
        return std::nullopt;
    }
    return rep["syntax_ok"].get<bool>();
}

} // namespace coding
