/*
 * c_counter: an environment plugin in plain C99, using only <envhost/plugin.h>.
 *
 * The agent adds to a counter; the episode is done when the counter reaches
 * the target (10 by default, or "target" in the plugin config). Reward: 1.0
 * on the step that reaches it, else 0.0.
 *
 * It declares itself NOT concurrency-safe (flags = 0) to show the flag: the
 * host then keeps at most one live instance. (Nothing here is actually
 * shared, so a real plugin like this one could set the flag.)
 *
 * Actions reach step() already validated against action_schema, so the
 * parsing below only has to find one integer.
 */
#include <envhost/plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct envhost_instance {
    const envhost_host *host;
    long count;
    long target;
    long steps;
    unsigned long episode;
};

/* Finds "key": <integer> in a small, schema-valid JSON object. */
static int find_long(const char *json, size_t len, const char *key, long *out) {
    char pattern[64];
    const char *p;
    char buf[256];
    if (len >= sizeof buf) len = sizeof buf - 1;
    memcpy(buf, json, len);
    buf[len] = '\0';
    snprintf(pattern, sizeof pattern, "\"%s\"", key);
    p = strstr(buf, pattern);
    if (!p) return 0;
    p = strchr(p + strlen(pattern), ':');
    if (!p) return 0;
    *out = strtol(p + 1, NULL, 10);
    return 1;
}

static void reply_observation(envhost_instance *inst, envhost_reply *reply, double reward) {
    char out[160];
    int n = snprintf(out, sizeof out,
                     "{\"observation\":{\"count\":%ld,\"target\":%ld},\"reward\":%.1f,\"done\":%s}",
                     inst->count, inst->target, reward, inst->count >= inst->target ? "true" : "false");
    reply->ok(reply, out, (size_t)n);
}

static envhost_instance *counter_create(const envhost_host *host, const char *config, size_t len,
                                        envhost_reply *reply) {
    envhost_instance *inst = calloc(1, sizeof *inst);
    if (!inst) {
        reply->error(reply, ENVHOST_ERROR_FACTORY, "out of memory", NULL);
        return NULL;
    }
    inst->host = host;
    inst->target = 10;
    find_long(config, len, "target", &inst->target);
    if (inst->target <= 0) {
        free(inst);
        reply->error(reply, ENVHOST_ERROR_FACTORY, "config 'target' must be a positive integer", NULL);
        return NULL;
    }
    return inst;
}

static void counter_reset(envhost_instance *inst, const char *options, size_t len, envhost_reply *reply) {
    (void)options;
    (void)len;
    inst->count = 0;
    inst->steps = 0;
    inst->episode++;
    inst->host->log(inst->host, ENVHOST_LOG_DEBUG, "c_counter: new episode");
    reply_observation(inst, reply, 0.0);
}

static void counter_step(envhost_instance *inst, const char *action, size_t len,
                         const envhost_step_options *options, envhost_reply *reply) {
    long by = 0;
    (void)options;
    if (!find_long(action, len, "increment", &by)) {
        reply->error(reply, ENVHOST_ERROR_EXECUTION, "action has no increment", NULL);
        return;
    }
    if (inst->count >= inst->target) {
        reply->error(reply, ENVHOST_ERROR_EXECUTION, "episode is over: reset first", NULL);
        return;
    }
    inst->count += by;
    inst->steps++;
    reply_observation(inst, reply, inst->count >= inst->target ? 1.0 : 0.0);
}

static void counter_state(envhost_instance *inst, envhost_reply *reply) {
    char out[160];
    int n = snprintf(out, sizeof out, "{\"episode_id\":\"episode-%lu\",\"step_count\":%ld,\"count\":%ld}",
                     inst->episode, inst->steps, inst->count);
    reply->ok(reply, out, (size_t)n);
}

static void counter_destroy(envhost_instance *inst) { free(inst); }

static const envhost_descriptor descriptor = {
    sizeof(envhost_descriptor),
    "c_counter",
    "1.0.0",
    "Add to a counter until it reaches the target (a plain-C example plugin)",
    "envhost examples",
    NULL,
    NULL,
    0, /* not concurrency-safe: see the comment at the top */
    1,
    "{\"type\":\"object\",\"properties\":{\"increment\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100},"
    "\"metadata\":{\"type\":\"object\"}},\"required\":[\"increment\"],\"additionalProperties\":false}",
    "{\"type\":\"object\",\"properties\":{\"count\":{\"type\":\"integer\"},\"target\":{\"type\":\"integer\"}}}",
    "{\"type\":\"object\",\"properties\":{\"episode_id\":{\"type\":\"string\"},\"step_count\":{\"type\":\"integer\"},"
    "\"count\":{\"type\":\"integer\"}}}",
    NULL,
    0,
};

static const envhost_plugin plugin = {
    ENVHOST_ABI_VERSION, sizeof(envhost_plugin), &descriptor, counter_create, counter_reset, counter_step,
    counter_state,       NULL, /* no tools */     counter_destroy, NULL, NULL,
};

ENVHOST_EXPORT const envhost_plugin *envhost_plugin_entry(void) { return &plugin; }
