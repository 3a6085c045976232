// The seccomp filter every sandboxed interpreter runs under: defence in depth
// behind the namespaces. It refuses (EPERM) the syscalls that reach kernel
// attack surface or could undo the sandbox: new namespaces, mounts, ptrace,
// bpf, keyrings, io_uring, module loading, etc. Everything else is allowed.
//
// Threads: install_seccomp_filter() is async-signal-safe (no allocation);
// it runs in the sandbox child between clone() and execve().
#pragma once

namespace coding {

// Returns false if the kernel refused the filter. On architectures without a
// filter table it installs nothing and returns true (see README).
bool install_seccomp_filter();

// Whether this build has a filter for the running architecture.
bool seccomp_supported();

} // namespace coding
