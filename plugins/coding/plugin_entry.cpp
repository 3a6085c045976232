// The exported entry point of coding_env.so. Everything else lives in
// coding_core so the unit tests can link it.
#include "coding_env.hpp"

ENVHOST_PLUGIN(coding::CodingEnv, coding::coding_env_info())
