// cdp.mjs — test-only: headless Chromium driven over the DevTools protocol
// on a pipe (--remote-debugging-pipe: fds 3 and 4, NUL-ended JSON), so the
// tests need no npm package for it and open no port.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

// Starts the browser; returns {send(method, params), events, close()}.
// send() talks to the first page; events collects console messages and
// uncaught exceptions of that page.
export async function launch(chromium = process.env.CHROMIUM || 'chromium') {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcstamp-chromium-'))
  const child = spawn(chromium, [
    '--headless', '--no-sandbox', '--disable-gpu',
    '--disable-background-networking', '--disable-component-update',
    '--no-first-run', `--user-data-dir=${profile}`,
    '--remote-debugging-pipe', 'about:blank',
  ], {stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe']})
  let stderr = ''
  child.stderr.on('data', d => { if (stderr.length < 65536) stderr += d })
  const out = child.stdio[3], inp = child.stdio[4]
  let id = 0, buf = Buffer.alloc(0), session = null
  const waiting = new Map(), events = []
  inp.on('data', chunk => {
    buf = Buffer.concat([buf, chunk])
    let z
    while ((z = buf.indexOf(0)) >= 0) {
      const msg = JSON.parse(buf.subarray(0, z).toString())
      buf = buf.subarray(z + 1)
      if (msg.id && waiting.has(msg.id)) {
        const w = waiting.get(msg.id)
        waiting.delete(msg.id)
        msg.error ? w.reject(new Error(`${w.method}: ${msg.error.message}`)) : w.resolve(msg.result)
      } else if (msg.method) {
        events.push(msg)
      }
    }
  })
  const exited = new Promise(r => child.on('exit', code => r(code)))
  // A browser that stops answering ends the test: each request has
  // ANSWER_MS to be answered, counted from when it was sent (not from the
  // launch), so that a long session on a loaded machine is not cut short.
  const ANSWER_MS = 300000
  function raw(method, params = {}, sessionId) {
    const m = {id: ++id, method, params}
    if (sessionId) m.sessionId = sessionId
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        console.error(`chromium: no answer to ${method} in ${ANSWER_MS / 1000} s\n` + stderr)
        child.kill('SIGKILL')
        process.exit(1)
      }, ANSWER_MS)
      const done = f => v => { clearTimeout(timer); f(v) }
      waiting.set(m.id, {resolve: done(resolve), reject: done(reject), method})
      out.write(JSON.stringify(m) + '\0')
    })
  }
  const {targetInfos} = await raw('Target.getTargets')
  const page = targetInfos.find(t => t.type === 'page')
  if (!page) throw new Error('chromium opened no page')
  session = (await raw('Target.attachToTarget', {targetId: page.targetId, flatten: true})).sessionId
  const send = (method, params) => raw(method, params, session)
  await send('Runtime.enable')
  await send('Page.enable')
  return {
    send,
    events,
    // The value of a page expression (awaited when it is a promise).
    async evaluate(expression) {
      const r = await send('Runtime.evaluate', {expression, awaitPromise: true, returnByValue: true})
      if (r.exceptionDetails) throw new Error(`${expression}: ${r.exceptionDetails.text}`)
      return r.result.value
    },
    // Console messages of a type ('warning', 'error', ...) and exceptions.
    messages(type) {
      return events.filter(e => e.method === 'Runtime.consoleAPICalled' && e.params.type === type)
        .map(e => e.params.args.map(a => a.value ?? a.description).join(' '))
    },
    exceptions() {
      return events.filter(e => e.method === 'Runtime.exceptionThrown')
        .map(e => e.params.exceptionDetails.exception?.description ?? e.params.exceptionDetails.text)
    },
    async close() {
      try { await raw('Browser.close') } catch { child.kill() }
      await exited
      fs.rmSync(profile, {recursive: true, force: true})
    },
  }
}

export const sleep = ms => new Promise(r => setTimeout(r, ms))

// Asks poll() every stepMs until it gives a truthy value; gives it, or the
// last value after WAIT_MS.  A page that loads slowly on a loaded machine
// is waited for: the bound only ends a page that never gets there.
export const WAIT_MS = 300000
export async function until(poll, stepMs = 50) {
  const end = Date.now() + WAIT_MS
  let v
  do {
    await sleep(stepMs)
    v = await poll()
  } while (!v && Date.now() < end)
  return v
}
