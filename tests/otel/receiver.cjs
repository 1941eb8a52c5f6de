// A receiver for tests/tools/otel.test, on 127.0.0.1 and a free port (written to
// PORTFILE once it listens).  Each request it gets is a JSON line in OUT.
//   node receiver.cjs otlp PORTFILE OUT
//     Elastic's mockotlpserver (a real OTLP/HTTP receiver).  Each request is
//     decoded with OpenTelemetry's own protobuf definition of
//     ExportTraceServiceRequest (the opentelemetry-proto files mockotlpserver
//     carries, through protobufjs): OTLP/JSON's hex ids made bytes, the
//     message built from the JSON (a misspelt field is lost there), encoded
//     to protobuf and decoded back.  Written as {"trace": <the decoded
//     message, ids as hex, 64-bit integers as strings>} or {"errors": why it
//     could not be decoded}; each request's headers as {"request": {path,
//     headers}}.  A metrics request (POST /v1/metrics) is decoded the same
//     way with ExportMetricsServiceRequest: {"metrics": <decoded>}.
//   node receiver.cjs flaky PORTFILE OUT N [SECONDS]
//     A plain HTTP server answering the first N posts 503 (Retry-After:
//     SECONDS, default 0) and the others 200: {"status": code, "body": <the
//     request>}.
//   node receiver.cjs answer PORTFILE OUT CODE BODY
//     Answers every post CODE with the JSON BODY (a refusal, a partial
//     success), written as flaky does; CODE 0 never answers.
// flaky and answer listen on the port in the variable PORT when it is set.
'use strict';
const fs = require('fs');
const http = require('http');
const diagnostics_channel = require('diagnostics_channel');

const [mode, portFile, out, n] = process.argv.slice(2);
const write = (o) => fs.appendFileSync(out, JSON.stringify(o) + '\n');
const stop = (close) => {
    process.on('SIGTERM', () => {
        // A connection left open (the receiver that never answers) must
        // not keep it alive: close what closes in half a second, then go.
        setTimeout(() => process.exit(0), 500).unref();
        close().then(() => process.exit(0));
    });
};

async function otlp() {
    const {MockOtlpServer} = require('@elastic/mockotlpserver');
    const {getProtoRoot} = require('@elastic/mockotlpserver/lib/proto');
    const Req = getProtoRoot().lookupType(
        'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
    const MReq = getProtoRoot().lookupType(
        'opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest');
    diagnostics_channel.subscribe('otlp.v1.request', (r) =>
        write({request: {path: r.path, headers: r.headers}}));
    const hexId = (v, n, what) => {
        if (v === undefined || v === '') return v;
        if (!new RegExp(`^[0-9a-f]{${n}}$`).test(v))
            throw Error(`${what} ${JSON.stringify(v)} is not ${n} lowercase hex digits`);
        return Buffer.from(v, 'hex');
    };
    const toHex = (b) => (b && b.length ? Buffer.from(b, 'base64').toString('hex') : undefined);
    const decode = (json) => {
        const o = JSON.parse(JSON.stringify(json));
        for (const rs of o.resourceSpans || [])
            for (const ss of rs.scopeSpans || [])
                for (const s of ss.spans || []) {
                    s.traceId = hexId(s.traceId, 32, 'traceId');
                    s.spanId = hexId(s.spanId, 16, 'spanId');
                    s.parentSpanId = hexId(s.parentSpanId, 16, 'parentSpanId');
                }
        const msg = Req.decode(Req.encode(Req.fromObject(o)).finish());
        const back = Req.toObject(msg, {longs: String, enums: Number, bytes: String});
        for (const rs of back.resourceSpans || [])
            for (const ss of rs.scopeSpans || [])
                for (const s of ss.spans || [])
                    for (const k of ['traceId', 'spanId', 'parentSpanId']) s[k] = toHex(s[k]);
        return back;
    };
    const server = new MockOtlpServer({
        logLevel: 'warn',
        services: ['http'],
        httpHostname: '127.0.0.1',
        httpPort: 0,
        onTrace: (trace) => {
            try {
                write({trace: decode(trace)});
            } catch (e) {
                write({errors: String(e)});
            }
        },
        onMetrics: (metrics) => {
            try {
                const m = MReq.decode(MReq.encode(MReq.fromObject(JSON.parse(JSON.stringify(metrics)))).finish());
                write({metrics: MReq.toObject(m, {longs: String, enums: Number})});
            } catch (e) {
                write({errors: String(e)});
            }
        },
    });
    await server.start();
    fs.writeFileSync(portFile, new URL(server.httpUrl).port + '\n');
    stop(() => server.close());
}

function flaky(answer) {
    let left = Number(n);
    const server = http.createServer((req, res) => {
        const chunks = [];
        req.on('data', (c) => chunks.push(c));
        req.on('end', () => {
            const status = answer ? Number(n) : left-- > 0 ? 503 : 200;
            write({status, body: JSON.parse(Buffer.concat(chunks).toString())});
            if (status === 0) return;
            if (answer) res.writeHead(status, {'Content-Type': 'application/json'});
            else if (status === 503) res.writeHead(503, {'Retry-After': process.argv[6] || '0'});
            else res.writeHead(200, {'Content-Type': 'application/json'});
            res.end(answer ? answer : status === 503 ? 'busy' : '{}');
        });
    });
    server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
        fs.writeFileSync(portFile, server.address().port + '\n');
    });
    stop(() => new Promise((r) => server.close(r)));
}

if (mode === 'otlp') otlp();
else if (mode === 'flaky') flaky();
else if (mode === 'answer') flaky(process.argv[6]);
else throw Error(`mode ${mode}?`);
