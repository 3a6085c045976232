// Monotonic time in nanoseconds: the one clock every measurement uses.
#pragma once
#include <cstdint>
#include <ctime>

namespace bench {

inline uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// CPU time (user + system) this process has used, in seconds.
double process_cpu_seconds();

}  // namespace bench
