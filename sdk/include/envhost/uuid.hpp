// Random RFC 4122 version-4 UUIDs for episode and session ids.
// Thread-safe: each thread keeps its own generator.
#pragma once

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>

namespace envhost {

inline std::string uuid4() {
    thread_local std::mt19937_64 gen{std::random_device{}()};
    uint64_t hi = gen(), lo = gen();
    hi = (hi & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL; // version 4
    lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL; // variant 10
    char buf[37];
    std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx",
                  static_cast<unsigned>(hi >> 32), static_cast<unsigned>((hi >> 16) & 0xFFFF),
                  static_cast<unsigned>(hi & 0xFFFF), static_cast<unsigned>(lo >> 48),
                  static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
    return buf;
}

} // namespace envhost
