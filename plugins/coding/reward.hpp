// The coding_env reward, computed from the code text only (protocol page,
// section 7). Pure functions; any thread.
#pragma once

#include <string>

namespace coding {

// Safety part: -1.0 if the code matches any of the reference's patterns
// (import\s+os, import\s+subprocess, eval(, exec(, __import__, open(), else 0.0.
double safety_reward(const std::string& code);

// The full reward: safety, +0.1 if len(code.strip()) <= 100 code points,
// -0.2 if the code is not valid Python syntax (decided by the interpreter).
double code_reward(const std::string& code, bool syntax_ok);

// Python's str.isspace() for one code point (what \s and strip() use).
bool is_python_space(char32_t c);

} // namespace coding
