#include "seccomp_filter.hpp"

#include <cerrno>
#include <cstddef>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace coding {

#if defined(__x86_64__)

namespace {

constexpr unsigned kDenied[] = {
    SYS_unshare, SYS_setns, SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot,
    SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_bpf, SYS_perf_event_open,
    SYS_userfaultfd, SYS_keyctl, SYS_add_key, SYS_request_key, SYS_kexec_load,
    SYS_kexec_file_load, SYS_init_module, SYS_finit_module, SYS_delete_module,
    SYS_open_by_handle_at, SYS_name_to_handle_at, SYS_fsopen, SYS_fsmount, SYS_fsconfig,
    SYS_fspick, SYS_open_tree, SYS_move_mount, SYS_mount_setattr, SYS_io_uring_setup,
    SYS_io_uring_enter, SYS_io_uring_register, SYS_acct, SYS_swapon, SYS_swapoff,
    SYS_reboot, SYS_settimeofday, SYS_clock_settime, SYS_clock_adjtime, SYS_adjtimex,
    SYS_syslog, SYS_vhangup, SYS_quotactl, SYS_lookup_dcookie, SYS_iopl, SYS_ioperm,
};

constexpr unsigned kNamespaceFlags = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS |
                                     CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP | CLONE_NEWTIME;

constexpr size_t kDeniedCount = sizeof(kDenied) / sizeof(kDenied[0]);
// arch check (3), load nr, x32, clone3, clone (4), the denied list, allow, EPERM, ENOSYS
constexpr size_t kLen = 3 + 1 + 1 + 1 + 4 + kDeniedCount + 3;

} // namespace

bool seccomp_supported() { return true; }

bool install_seccomp_filter() {
    sock_filter prog[kLen];
    size_t n = 0;
    auto stmt = [&](unsigned short code, unsigned k) { prog[n++] = BPF_STMT(code, k); };
    auto jump = [&](unsigned short code, unsigned k, unsigned char jt, unsigned char jf) {
        prog[n++] = BPF_JUMP(code, k, jt, jf);
    };
    const size_t deny_at = kLen - 2, nosys_at = kLen - 1; // indexes of the two return stmts
    // Only the native ABI: anything else (i386 int 0x80) is killed.
    stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch));
    jump(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
    stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr));
    // x32 syscall numbers (bit 30): refuse.
    jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, static_cast<unsigned char>(deny_at - n - 1), 0);
    // clone3 hides its flags in memory: say ENOSYS so libc falls back to clone.
    jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, static_cast<unsigned char>(nosys_at - n - 1), 0);
    // clone with any namespace flag: refuse. (nr is reloaded after.)
    jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3);
    stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0]));
    jump(BPF_JMP | BPF_JSET | BPF_K, kNamespaceFlags, static_cast<unsigned char>(deny_at - n - 1), 0);
    stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr));
    for (unsigned nr : kDenied) jump(BPF_JMP | BPF_JEQ | BPF_K, nr, static_cast<unsigned char>(deny_at - n - 1), 0);
    stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
    stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
    if (n != kLen) return false;
    sock_fprog fprog{static_cast<unsigned short>(n), prog};
    return ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) == 0;
}

#else

bool seccomp_supported() { return false; }
bool install_seccomp_filter() { return true; }

#endif

} // namespace coding
