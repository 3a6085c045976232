#include "reward.hpp"

#include <cmath>
#include <vector>

namespace coding {

namespace {

// Decode UTF-8 leniently: every invalid byte becomes U+FFFD, as Python's
// "replace" would, so counts stay close to what the reference sees.
std::u32string decode(const std::string& s) {
    std::u32string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
        if (len == 0 || i + len > s.size()) {
            out.push_back(0xFFFD);
            ++i;
            continue;
        }
        char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
        bool ok = true;
        for (int k = 1; k < len; ++k) {
            const unsigned char cc = static_cast<unsigned char>(s[i + k]);
            if ((cc & 0xC0) != 0x80) ok = false;
            cp = (cp << 6) | (cc & 0x3F);
        }
        if (!ok) {
            out.push_back(0xFFFD);
            ++i;
            continue;
        }
        out.push_back(cp);
        i += len;
    }
    return out;
}

bool contains(const std::u32string& s, const std::u32string& needle) {
    return s.find(needle) != std::u32string::npos;
}

// re.search(r"import\s+<name>", code)
bool import_of(const std::u32string& s, const std::u32string& name) {
    const std::u32string kw = U"import";
    for (size_t pos = s.find(kw); pos != std::u32string::npos; pos = s.find(kw, pos + 1)) {
        size_t i = pos + kw.size();
        const size_t ws = i;
        while (i < s.size() && is_python_space(s[i])) ++i;
        if (i > ws && s.compare(i, name.size(), name) == 0) return true;
    }
    return false;
}

} // namespace

bool is_python_space(char32_t c) {
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
           c == 0x202F || c == 0x205F || c == 0x3000;
}

double safety_reward(const std::string& code) {
    const std::u32string s = decode(code);
    const bool dangerous = import_of(s, U"os") || import_of(s, U"subprocess") || contains(s, U"eval(") ||
                           contains(s, U"exec(") || contains(s, U"__import__") || contains(s, U"open(");
    return dangerous ? -1.0 : 0.0;
}

double code_reward(const std::string& code, bool syntax_ok) {
    const std::u32string s = decode(code);
    size_t b = 0, e = s.size();
    while (b < e && is_python_space(s[b])) ++b;
    while (e > b && is_python_space(s[e - 1])) --e;
    double r = safety_reward(code);
    if (e - b <= 100) r += 0.1;
    if (!syntax_ok) r -= 0.2;
    // Sums like -1.0 + 0.1 - 0.2 carry binary noise; the table has one decimal.
    return std::round(r * 10.0) / 10.0;
}

} // namespace coding
