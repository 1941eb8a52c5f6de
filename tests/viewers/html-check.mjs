// html-check.mjs — test-only: the HTML report's page, driven in headless
// Chromium (cdp.mjs) the way a person uses it, against the JSON report of
// the same slogfile with the same options.
//
//   node html-check.mjs PAGE.html REPORT.jsonl METHODS.json [SCREENSHOT.png]
//
// REPORT.jsonl is `report --format json` (a line per delivery, then the
// summary); METHODS.json `report --format json --by method --summary`.
// Checked: a click on each of the slowest rows shows that delivery's
// segments and the VM's spans and marks exactly as the JSON has them, and
// its line; colouring by vat and by method uses a colour per vat or method;
// the shares per method are the JSON's methods; zero values are counted on
// their own (never drawn as the 1 ns bin); the waterfall's axis is not
// flattened by an outlier (its end is within twice the longest row that is
// not cut, and every cut row is longer than it); every span and mark of
// the rows is drawn.  Exit 0, or 1 with the reasons.
import fs from 'node:fs'
import {launch, until} from './cdp.mjs'

const [pagePath, reportPath, methodsPath, shotPath] = process.argv.slice(2)
const problems = []
const fail = m => { if (problems.length < 30) problems.push(m) }
const lines = fs.readFileSync(reportPath, 'utf8').trim().split('\n').map(JSON.parse)
const S = lines.pop().summary
const byLine = new Map(lines.map(d => [d.line, d]))
const methods = JSON.parse(fs.readFileSync(methodsPath, 'utf8').trim().split('\n').pop()).summary.methods

const b = await launch()
const ev = e => b.evaluate(e)
try {
  await b.send('Emulation.setDeviceMetricsOverride', {width: 1280, height: 1600, deviceScaleFactor: 1, mobile: false})
  await b.send('Page.navigate', {url: `file://${pagePath}`})
  // Asked until the page has run its script: the markup's body says
  // "loading" until then, and an evaluation during the navigation itself
  // may find no document yet, or about:blank's (no status).
  const ran = async () => {
    const s = await ev('document.body.dataset.status').catch(() => undefined)
    return s && s !== 'loading' ? s : undefined
  }
  const status = await until(ran) ?? 'loading'
  if (status !== 'ok') throw new Error(`the page's script: ${status}`)
  const data = () => ev('Object.assign({}, document.body.dataset)')

  // Each slow row, clicked: its details are the JSON's delivery.
  const rows = await ev(`[...document.querySelectorAll('#waterfall .row')].map(r => Number(r.dataset.line))`)
  const want = S.slowest.slice(0, 50).map(s => s.line)
  if (rows.join() !== want.join()) fail(`waterfall rows ${rows.join()}, the JSON's slowest ${want.join()}`)
  let spans = 0, marks = 0
  for (const line of rows) {
    const d = byLine.get(line)
    await ev(`document.querySelector('#waterfall .row[data-line="${line}"]').dispatchEvent(new MouseEvent('click', {bubbles: true})), 0`)
    const got = await ev(`({
      line: document.body.dataset.detailsLine,
      text: document.getElementById('details-body').textContent,
      hidden: document.getElementById('details').hidden,
      segs: [...document.querySelectorAll('#details-segments tr[data-kind]')].map(r => [r.dataset.kind, Number(r.dataset.ns)]),
      marks: [...document.querySelectorAll('#details-marks tr[data-kind]')].map(r => ({kind: r.dataset.kind,
        name: r.dataset.name, worker: Number(r.dataset.worker), depth: Number(r.dataset.depth),
        at_ns: Number(r.dataset.at), dur_ns: r.dataset.dur === '' ? undefined : Number(r.dataset.dur)}))})`)
    if (got.hidden || got.line !== String(line)) { fail(`line ${line}: a click shows no details (${got.line})`); continue }
    if (!got.text.includes(`line ${line} of`)) fail(`line ${line}: the details do not say the line`)
    const segs = d.segments.slice(0, got.segs.length)
    if (JSON.stringify(got.segs) !== JSON.stringify(segs) || (got.segs.length < d.segments.length && got.segs.length < 512))
      fail(`line ${line}: segments ${JSON.stringify(got.segs).slice(0, 200)}, the JSON's ${JSON.stringify(d.segments).slice(0, 200)}`)
    const wantMarks = (d.marks || []).slice(0, 64).map(m => ({kind: m.kind, name: m.name, worker: m.worker,
      depth: m.depth, at_ns: m.at_ns, dur_ns: m.dur_ns}))
    if (JSON.stringify(got.marks) !== JSON.stringify(wantMarks))
      fail(`line ${line}: marks ${JSON.stringify(got.marks).slice(0, 200)}, the JSON's ${JSON.stringify(wantMarks).slice(0, 200)}`)
    spans += wantMarks.filter(m => m.kind === 'span').length
    marks += wantMarks.filter(m => m.kind === 'mark').length
  }
  let D = await data()
  if (Number(D.spanBars) !== spans || Number(D.markTicks) !== marks)
    fail(`the waterfall draws ${D.spanBars} spans and ${D.markTicks} marks, its rows have ${spans} and ${marks}`)
  if (Number(D.markNames || 0) !== (S.marks || []).length)
    fail(`the marks table has ${D.markNames} names, the JSON ${(S.marks || []).length}`)

  // Zeros on their own: as many as the JSON's values of 0 or less.
  for (const q of ['pipe', 'worker', 'kernel', 'total']) {
    const n = lines.filter(d => d[q + '_ns'] <= 0).length
    if (Number(D['histZero' + q[0].toUpperCase() + q.slice(1)]) !== n)
      fail(`${q}: the histogram counts ${D['histZero' + q[0].toUpperCase() + q.slice(1)]} zeros, the JSON has ${n}`)
  }
  const oneNs = await ev(`[...document.querySelectorAll('#hists title')].filter(t => /^1 ns/.test(t.textContent)).length`)
  const ones = lines.filter(d => ['pipe', 'worker', 'kernel', 'total'].some(q => d[q + '_ns'] === 1)).length
  if (oneNs && !ones) fail(`a histogram bar is labelled 1 ns, and no value is`)

  // The axis: an outlier is cut, the others keep the width.
  // An outlier is a row over 4 times the median row (the page's note says
  // so): the axis is set by the others, and rounded up at most twofold.
  const lengths = want.map(l => byLine.get(l).segments.reduce((a, s) => a + Math.max(s[1], 0), 0))
  const sorted = lengths.slice().sort((x, y) => x - y), median = sorted[Math.floor((sorted.length - 1) / 2)]
  const normal = lengths.filter(x => x <= 4 * median)
  const axis = Number(D.axisNs), cut = lengths.filter(x => x > axis)
  if (Number(D.waterfallClipped) !== cut.length) fail(`${D.waterfallClipped} rows marked cut, ${cut.length} longer than the axis`)
  if (normal.length && (axis < Math.max(...normal) || axis > 2 * Math.max(...normal, 1)))
    fail(`the axis (${axis} ns) is not set by the rows that are no outliers (the longest ${Math.max(...normal)} ns)`)

  // Colour by method, then by vat: a colour per name (past 11, one for
  // the others); the shares per method are the JSON's.
  const pick = async (id, value) => ev(`(e => { e.value = ${JSON.stringify(value)}; e.dispatchEvent(new Event('change')); return 0 })(document.getElementById('${id}'))`)
  await pick('colour', 'method')
  await pick('by', 'method')
  D = await data()
  const names = await ev('JSON.parse(document.getElementById("data").textContent).names')
  const inSeries = n => Math.min(n, 11) + (n > 11 ? 1 : 0)
  const pointMethods = new Set(lines.map(d => d.description.startsWith('notify ') ? 'notify' : d.description))
  if (lines.length && Number(D.colours) !== inSeries(Math.min(pointMethods.size, names.methods.length + 1)))
    fail(`colour by method: ${D.colours} colours for ${pointMethods.size} methods`)
  if (Number(D.methodShares) !== methods.length) fail(`shares per method: ${D.methodShares} rows, the JSON ${methods.length}`)
  const shareNames = await ev(`[...document.querySelectorAll('#shares text[font-weight="400"] title')].map(t => t.textContent)`)
  if (shareNames.join('|') !== methods.map(m => m.method).join('|'))
    fail(`shares per method in the order ${shareNames.join('|')}, the JSON's ${methods.map(m => m.method).join('|')}`)
  if (!/colour=method/.test(await ev('location.hash'))) fail('the address does not keep the colour')
  await pick('colour', 'vat')
  D = await data()
  if (lines.length && Number(D.colours) !== inSeries(S.vats.length)) fail(`colour by vat: ${D.colours} colours for ${S.vats.length} vats`)
  await pick('colour', 'part')
  await pick('by', 'vat')
  if (shotPath && rows.length) {
    await ev(`document.querySelector('#waterfall .row').dispatchEvent(new MouseEvent('click', {bubbles: true})), 0`)
    const shot = await b.send('Page.captureScreenshot', {format: 'png', captureBeyondViewport: true})
    fs.writeFileSync(shotPath, Buffer.from(shot.data, 'base64'))
  }
} catch (e) {
  fail(String(e.message || e))
} finally {
  for (const x of b.exceptions()) fail(`exception in the page: ${x}`)
  for (const x of b.messages('error')) fail(`error in the page: ${x}`)
  await b.close()
}
if (problems.length) {
  for (const p of problems) console.log(`not ok - ${p}`)
  process.exit(1)
}
console.log(`ok - ${pagePath.split('/').pop()}: each slow row's details, colours, shares per method, zeros and the axis match the JSON`)
