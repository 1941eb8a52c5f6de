// OTLP key-value lists ([{key, value: {intValue | boolValue | stringValue}}])
// as plain objects, for the tests' scripts: 64-bit integers (strings in
// OTLP/JSON and as decoded) become Numbers, which is exact for every value
// the tests compare.
'use strict';
module.exports = (kvs) => {
    const a = {};
    for (const kv of kvs || []) {
        const v = kv.value;
        a[kv.key] = 'intValue' in v ? Number(v.intValue)
            : 'boolValue' in v ? v.boolValue : v.stringValue;
    }
    return a;
};
