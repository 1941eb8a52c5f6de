// speedscope-check.mjs — test-only: loads a trace into speedscope (npm, its
// own page in headless Chromium, the way its command line does) and checks
// that speedscope sees exactly the slices of the trace, nested as written.
//
//   node speedscope-check.mjs TRACE.json
//
// speedscope imports B/E and X events per thread and pairs each end with
// the slice on top of its stack; a slice that ends one ulp after its next
// sibling starts is taken for that sibling's parent, and the thread draws as
// a staircase (and speedscope warns "Tried to end ...").  What speedscope
// imported is read back through its own export (Ctrl+S, a
// .speedscope.json): one profile per thread, with an open and a close
// event per slice.  Exit 0 when every thread matches, 1 with the reasons.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {launch, until} from './cdp.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const page = path.join(process.env.SPEEDSCOPE_DIR || path.join(here, 'node_modules/speedscope'),
                       'dist/release/index.html')
const tracePath = process.argv[2]
const problems = []
const fail = m => { if (problems.length < 20) problems.push(m) }

// The trace as its writer meant it: per thread, each slice with its start
// and end in integer ns (an X's end is ts + dur computed exactly), its
// depth from how the slices contain each other, and speedscope's frame name
// for it (the name, then the args as JSON).  Timestamps have at most three
// decimals, so ts * 1000 rounds to the exact ns.
const trace = JSON.parse(fs.readFileSync(tracePath, 'utf8'))
const events = Array.isArray(trace) ? trace : trace.traceEvents
const threads = new Map()
const ns = us => Math.round(us * 1000)
let order = 0
// What each method's deliveries add up to, from the details instants
// (ns): a frame per "vat method" must carry exactly that in speedscope.
const byMethod = new Map()
for (const e of events) {
  if (e.ph !== 'i' || e.name !== 'delivery') continue
  const key = `${e.args.vat} ${e.args.method}`
  byMethod.set(key, (byMethod.get(key) || 0) + e.args.total_ns)
}
for (const e of events) {
  if (e.ph !== 'B' && e.ph !== 'E' && e.ph !== 'X') continue
  const key = `${e.pid}:${e.tid}`
  if (!threads.has(key)) threads.set(key, {slices: [], stack: []})
  const t = threads.get(key)
  const name = e.name + (e.args ? ' ' + JSON.stringify(e.args) : '')
  if (e.ph === 'X') {
    t.slices.push({name, start: ns(e.ts), end: ns(e.ts) + ns(e.dur || 0), order: order++})
  } else if (e.ph === 'B') {
    const s = {name, start: ns(e.ts), order: order++}
    t.slices.push(s)
    t.stack.push(s)
  } else {
    const s = t.stack.pop()
    if (s) s.end = ns(e.ts)
    else fail(`thread ${key}: an E (${e.name}) without its B`)
  }
}
for (const [key, t] of threads) {
  if (t.stack.length) fail(`thread ${key}: ${t.stack.length} slices never end`)
  // speedscope keeps no zero-length frame (it draws weights): leave them out.
  t.slices = t.slices.filter(s => s.end !== undefined && s.end !== s.start)
  t.slices.sort((a, b) => a.start - b.start || b.end - a.end || a.order - b.order)
  const open = []
  for (const s of t.slices) {
    while (open.length && open[open.length - 1].end <= s.start) open.pop()
    s.depth = open.length
    open.push(s)
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcstamp-speedscope-'))
const loader = path.join(dir, 'load.js')
// Runs in speedscope's page: keeps what the export writes, then loads the
// trace as `speedscope FILE` does.
fs.writeFileSync(loader, `
  URL.createObjectURL = (orig => function (blob) {
    blob.text().then(t => { window.__ipcstampExport = t })
    return orig.call(URL, blob)
  })(URL.createObjectURL)
  speedscope.loadFileFromBase64(${JSON.stringify(path.basename(tracePath))},
    ${JSON.stringify(fs.readFileSync(tracePath).toString('base64'))})
`)

const b = await launch()
let exported = null
try {
  await b.send('Page.navigate', {url: `file://${page}#localProfilePath=${loader}`})
  exported = await until(async () => {
    await b.evaluate(`window.dispatchEvent(new KeyboardEvent('keydown', {key: 's', ctrlKey: true})), 0`)
    return b.evaluate('window.__ipcstampExport || null')
  }, 100)
} finally {
  var warnings = b.messages('warning'), errors = b.messages('error').concat(b.exceptions())
  await b.close()
  fs.rmSync(dir, {recursive: true, force: true})
}
if (!exported) fail('speedscope did not import the trace (nothing to export)')
for (const w of warnings) fail(`speedscope warned: ${w.slice(0, 300)}`)
for (const e of errors) fail(`error in speedscope's page: ${e.slice(0, 300)}`)

if (exported) {
  const x = JSON.parse(exported)
  const frames = x.shared.frames
  const seen = new Set()
  for (const p of x.profiles) {
    const m = /\(pid (\d+)\)?, .*\(?tid (\d+)\)$/.exec(p.name) || /pid (\d+), tid (\d+)/.exec(p.name)
    if (!m) { fail(`profile "${p.name}" names no thread`); continue }
    const key = `${m[1]}:${m[2]}`
    seen.add(key)
    const want = threads.get(key)
    if (!want) { fail(`speedscope shows thread ${key}, which has no slice`); continue }
    // speedscope's slices: its open events, with their depth and times.
    const got = [], stack = []
    for (const ev of p.events) {
      if (ev.type === 'O') {
        const s = {name: frames[ev.frame].name, depth: stack.length, start: ev.at}
        got.push(s)
        stack.push(s)
      } else {
        const s = stack.pop()
        if (s) s.end = ev.at
      }
    }
    if (got.length !== want.slices.length)
      fail(`${p.name}: speedscope sees ${got.length} slices, the trace has ${want.slices.length}`)
    const origin = Math.min(...want.slices.map(s => s.start)) / 1000
    for (let i = 0; i < Math.min(got.length, want.slices.length); i++) {
      const g = got[i], w = want.slices[i]
      if (g.name !== w.name || g.depth !== w.depth) {
        fail(`${p.name}: slice ${i} is "${g.name.slice(0, 80)}" at depth ${g.depth}, ` +
             `the trace has "${w.name.slice(0, 80)}" at depth ${w.depth}`)
        break
      }
      // Times are doubles here: a little rounding, never a slice's worth.
      if (Math.abs(g.start - (w.start / 1000 - origin)) > 0.002 || Math.abs(g.end - (w.end / 1000 - origin)) > 0.002) {
        fail(`${p.name}: slice ${i} (${w.name.slice(0, 40)}) is at ${g.start}..${g.end}, ` +
             `the trace has ${w.start / 1000 - origin}..${w.end / 1000 - origin}`)
        break
      }
    }
  }
  for (const key of threads.keys())
    if (!seen.has(key)) fail(`speedscope does not show thread ${key}`)
  // One frame per name (Left Heavy and Sandwich add up by frame), and on
  // the kernel's threads each method's frame totals its deliveries.
  for (const p of x.profiles) {
    const used = new Map()
    for (const ev of p.events) {
      const name = frames[ev.frame].name
      if (!used.has(name)) used.set(name, new Set())
      used.get(name).add(ev.frame)
    }
    for (const [name, set] of used)
      if (set.size > 1) fail(`${p.name}: "${name.slice(0, 60)}" is ${set.size} frames, not one`)
  }
  const summed = new Map()
  for (const p of x.profiles) {
    if (!/\(pid 1[,)]/.test(p.name) && !/pid 1, /.test(p.name)) continue
    const open = []
    for (const ev of p.events) {
      if (ev.type === 'O') { open.push(ev); continue }
      const o = open.pop()
      const name = frames[o.frame].name
      if (byMethod.has(name)) summed.set(name, (summed.get(name) || 0) + (ev.at - o.at))
    }
  }
  for (const [name, total] of byMethod) {
    const got = summed.get(name) || 0
    // speedscope's times are microsecond doubles: allow a little rounding.
    if (Math.abs(got * 1000 - total) > 2 + total * 1e-9)
      fail(`frame "${name}" adds up to ${got} us in speedscope, its deliveries to ${total / 1000} us`)
  }
  if (byMethod.size === 0) fail('the trace has no delivery details')
  else console.log(`ok - ${byMethod.size} methods, each one frame whose time is its deliveries' total`)
}
if (problems.length) {
  for (const p of problems) console.log(`not ok - ${p}`)
  process.exit(1)
}
console.log(`ok - speedscope sees all ${[...threads.values()].reduce((n, t) => n + t.slices.length, 0)} ` +
            `slices of ${threads.size} threads, nested as written, with no warning`)
