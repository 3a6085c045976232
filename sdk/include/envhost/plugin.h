/*
 * envhost plugin ABI, version 1 — plain C, no dependencies.
 *
 * A plugin is a shared library exporting one function, ENVHOST_ENTRY_SYMBOL:
 *
 *     const envhost_plugin *envhost_plugin_entry(void);
 *
 * It returns a pointer to static, immutable data. The host reads abi_version
 * and struct_size first and refuses the library unless abi_version equals the
 * host's ENVHOST_ABI_VERSION; struct_size lets later minor revisions append
 * fields at the end without breaking older plugins (the host ignores what it
 * does not know, and treats missing trailing fields as absent).
 *
 * Ownership rule, for every string that crosses the boundary in either
 * direction: NOTHING is freed across it.
 *   - Strings the host passes in (config, options, actions, tool arguments)
 *     are borrowed: valid only until the called function returns.
 *   - Strings in the descriptor are owned by the plugin and must stay valid
 *     and unchanged until the library is unloaded.
 *   - Results travel through an envhost_reply the host owns: the plugin calls
 *     reply->ok or reply->error exactly once before returning; the host copies
 *     the bytes during that call, so the plugin may free its buffers afterwards.
 *
 * All JSON is UTF-8. No C++ exception, longjmp or C++ type may cross.
 *
 * Thread rules are written next to each function as [tag]:
 *   [any-thread]      may be called from any thread, concurrently.
 *   [session-thread]  called only on the worker thread that owns the instance;
 *                     the host never calls two functions of one instance at
 *                     the same time. Different instances may run concurrently
 *                     on different threads, but only if the plugin sets
 *                     ENVHOST_FLAG_CONCURRENCY_SAFE; otherwise the host keeps at
 *                     most one live instance.
 */
#ifndef ENVHOST_PLUGIN_H
#define ENVHOST_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ENVHOST_ABI_VERSION 1u
#define ENVHOST_ENTRY_SYMBOL "envhost_plugin_entry"

#if defined(_WIN32)
#define ENVHOST_EXPORT __declspec(dllexport)
#else
#define ENVHOST_EXPORT __attribute__((visibility("default")))
#endif

/* ---- Errors are data ---------------------------------------------------- */

typedef enum envhost_error_kind {
    /* The input failed validation. errors_json, if given, is a JSON array of
     * pydantic-style items {"type","loc","msg","input"}. WS: VALIDATION_ERROR,
     * HTTP: 422. */
    ENVHOST_ERROR_VALIDATION = 1,
    /* The environment failed while handling a valid request (EXECUTION_ERROR). */
    ENVHOST_ERROR_EXECUTION = 2,
    /* call_tool: no tool of that name. */
    ENVHOST_ERROR_TOOL_NOT_FOUND = 3,
    /* call_tool: the arguments do not fit the tool's input schema. */
    ENVHOST_ERROR_INVALID_ARGS = 4,
    /* The work exceeded its time limit. */
    ENVHOST_ERROR_TIMEOUT = 5,
    /* create: the instance could not be created (FACTORY_ERROR). */
    ENVHOST_ERROR_FACTORY = 6
} envhost_error_kind;

/* ---- Replies: how results cross without ownership transfer --------------- */

typedef struct envhost_reply envhost_reply;
struct envhost_reply {
    uint32_t struct_size;
    /* [session-thread] Success with a UTF-8 JSON document of len bytes. */
    void (*ok)(envhost_reply *self, const char *json, size_t len);
    /* [session-thread] Failure. message: NUL-terminated UTF-8, required.
     * errors_json: NUL-terminated JSON array or NULL. */
    void (*error)(envhost_reply *self, envhost_error_kind kind,
                  const char *message, const char *errors_json);
    void *host_data; /* the host's; plugins must not touch it */
};

/* ---- Host services (append-only table: new entries only at the end) ------ */

typedef enum envhost_log_level {
    ENVHOST_LOG_DEBUG = 1,
    ENVHOST_LOG_INFO = 2,
    ENVHOST_LOG_WARN = 3,
    ENVHOST_LOG_ERROR = 4
} envhost_log_level;

typedef struct envhost_host {
    uint32_t struct_size;
    uint32_t abi_version;
    /* [any-thread] Log one NUL-terminated UTF-8 line into the host's log,
     * tagged with the plugin's name. */
    void (*log)(const struct envhost_host *host, envhost_log_level level,
                const char *message);
    void *host_data; /* the host's; plugins must not touch it */
} envhost_host;

/* ---- Descriptor: cheap, static, side-effect free ------------------------ */

#define ENVHOST_FLAG_CONCURRENCY_SAFE 1u

typedef struct envhost_tool_desc {
    const char *name;         /* not reset/step/state/close (reserved) */
    const char *description;  /* required, may be "" */
    const char *input_schema; /* JSON Schema object of the arguments */
} envhost_tool_desc;

typedef struct envhost_descriptor {
    uint32_t struct_size;
    const char *name;        /* [a-z0-9_-]+, used in URLs: /envs/<name>/ */
    const char *version;     /* e.g. "1.0.0" */
    const char *description;
    const char *author;            /* may be NULL */
    const char *documentation_url; /* may be NULL */
    const char *readme;            /* markdown, may be NULL */
    uint32_t flags;                /* ENVHOST_FLAG_* */
    uint32_t default_max_sessions; /* used when the host config sets none */
    const char *action_schema;      /* JSON Schema; actions are validated
                                       against it before step sees them */
    const char *observation_schema; /* JSON Schema of the observation object */
    const char *state_schema;       /* JSON Schema of state() */
    const envhost_tool_desc *tools; /* may be NULL when tool_count == 0 */
    uint32_t tool_count;
} envhost_descriptor;

/* ---- The plugin table ---------------------------------------------------- */

typedef struct envhost_instance envhost_instance; /* plugin-defined */

typedef struct envhost_step_options {
    uint32_t struct_size;
    double timeout_s; /* > 0: the client's time limit for this step; 0: none given */
} envhost_step_options;

typedef struct envhost_plugin {
    uint32_t abi_version; /* must be ENVHOST_ABI_VERSION */
    uint32_t struct_size; /* sizeof(envhost_plugin) as the plugin was built */

    /* [any-thread] Static data; reading it has no side effects. */
    const envhost_descriptor *descriptor;

    /* [session-thread] Create an instance. config_json is the environment's
     * plugin config from the host configuration ("{}" when none). host stays
     * valid until destroy returns. On failure return NULL after calling
     * reply->error (kind ENVHOST_ERROR_FACTORY); on success do not reply. */
    envhost_instance *(*create)(const envhost_host *host, const char *config_json,
                                size_t config_len, envhost_reply *reply);

    /* [session-thread] Start a new episode. options_json: a JSON object with
     * the client's keys (seed, episode_id, extras). Reply ok with
     * {"observation":{...},"reward":<num|null>,"done":<bool>}. */
    void (*reset)(envhost_instance *inst, const char *options_json, size_t len,
                  envhost_reply *reply);

    /* [session-thread] Apply an action that already passed action_schema.
     * Reply as reset. options may be NULL. */
    void (*step)(envhost_instance *inst, const char *action_json, size_t len,
                 const envhost_step_options *options, envhost_reply *reply);

    /* [session-thread] Reply ok with the state object. */
    void (*state)(envhost_instance *inst, envhost_reply *reply);

    /* [session-thread] Call a declared tool; NULL when tool_count == 0.
     * Reply ok with the tool's result value (any JSON). */
    void (*call_tool)(envhost_instance *inst, const char *name,
                      const char *arguments_json, size_t len,
                      envhost_reply *reply);

    /* [session-thread] Release everything the instance holds. Never fails. */
    void (*destroy)(envhost_instance *inst);

    /* [main-thread] Optional (NULL when unused). Called once when the host
     * starts serving the environment, before any create, with the same
     * config_json that create receives. Validate the config, log warnings,
     * start resources shared by all instances (e.g. a pool of warm workers).
     * Reply ok (any JSON; ignored) or error: the host then does not serve
     * the environment and logs the message. host stays valid until stop. */
    void (*start)(const envhost_host *host, const char *config_json,
                  size_t config_len, envhost_reply *reply);

    /* [main-thread] Optional. Called once at shutdown, after every instance
     * has been destroyed, when start had succeeded. */
    void (*stop)(void);
} envhost_plugin;

typedef const envhost_plugin *(*envhost_entry_fn)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENVHOST_PLUGIN_H */
