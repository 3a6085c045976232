// guess_env: a minimal C++ plugin on the envhost SDK. Guess a secret number
// between 1 and 100; each observation says "higher", "lower" or "correct".
// Reset with {"seed": n} for a reproducible secret.
#include <envhost/sdk.hpp>

#include <random>

using envhost::json;

class GuessEnv final : public envhost::Environment {
public:
    explicit GuessEnv(const json& config) : max_(config.value("max", 100)) {}

    envhost::StepResult reset(const json& options) override {
        std::mt19937 rng(options.contains("seed") ? options["seed"].get<unsigned>() : std::random_device{}());
        secret_ = std::uniform_int_distribution<int>(1, max_)(rng);
        episode_ = options.value("episode_id", envhost::uuid4());
        steps_ = 0;
        envhost::StepResult r;
        r.observation = {{"hint", "guess a number from 1 to " + std::to_string(max_)}};
        r.reward = 0.0;
        return r;
    }

    envhost::StepResult step(const json& action, std::optional<double>) override {
        if (secret_ == 0) throw envhost::ExecutionError("call reset first");
        const int guess = action["guess"].get<int>();
        ++steps_;
        envhost::StepResult r;
        r.done = guess == secret_;
        r.observation = {{"hint", r.done ? "correct" : guess < secret_ ? "higher" : "lower"}};
        r.reward = r.done ? 1.0 : -0.01;
        return r;
    }

    json state() override { return {{"episode_id", episode_}, {"step_count", steps_}}; }

private:
    int max_;
    int secret_ = 0;
    int steps_ = 0;
    std::string episode_;
};

static envhost::PluginInfo guess_info() {
    envhost::PluginInfo i;
    i.name = "guess_env";
    i.description = "Guess the secret number (a minimal C++ SDK example)";
    i.concurrency_safe = true;
    i.default_max_sessions = 16;
    i.action_schema = json::parse(R"({"type":"object","properties":{"guess":{"type":"integer"}},
                                      "required":["guess"],"additionalProperties":false})");
    i.observation_schema = json::parse(R"({"type":"object","properties":{"hint":{"type":"string"}}})");
    return i;
}

ENVHOST_PLUGIN(GuessEnv, guess_info())
