/* A Node-API module with one function, answer(), returning 42: the
 * smallest native module that npm builds with node-gyp, as it builds
 * better-sqlite3 under Agoric's swing-store.  tests/peers.test installs it
 * with tests/npm-ci.sh and an empty HOME, to prove that a fresh machine
 * compiles native peers with no npm configuration and no download. */
#include <node_api.h>

static napi_value answer(napi_env env, napi_callback_info info)
{
    napi_value v;

    (void)info;
    if (napi_create_int32(env, 42, &v) != napi_ok)
        return NULL;
    return v;
}

NAPI_MODULE_INIT()
{
    napi_value fn;

    if (napi_create_function(env, "answer", NAPI_AUTO_LENGTH, answer, NULL, &fn) != napi_ok ||
        napi_set_named_property(env, exports, "answer", fn) != napi_ok)
        return NULL;
    return exports;
}
