'use strict';
// report.js — the script of `ipcstamp report --format html` (report.html.in
// holds the markup, report.css the style; html_in.awk puts the three in one
// page).  It draws the data html.c wrote as SVG and tables, and records
// what it drew as data- attributes of <body> for tests/html.test.
(function () {
  const body = document.body;
  const errors = [];
  window.addEventListener('error', e => {
    errors.push(String(e.message));
    body.dataset.errors = String(errors.length);
    body.dataset.status = 'error: ' + errors.join('; ');
  });
  const D = JSON.parse(document.getElementById('data').textContent);
  const NS = 'http://www.w3.org/2000/svg';
  const KIND = {send: 'pipe', upcall: 'pipe', reply: 'pipe', result: 'pipe',
                worker: 'worker', kernel: 'kernel', unmatched: 'unmatched'};
  const PART = {pipe: 'var(--pipe)', worker: 'var(--worker)', kernel: 'var(--kernel)',
                unmatched: 'var(--unmatched)'};
  // Colours of vats or methods, in the order the data names them; the ones
  // past the palette share the last, grey.
  const PALETTE = ['#3b7dd8', '#e3962b', '#3f9d5a', '#c2378c', '#7a4fb5', '#17a2b8',
                   '#b8860b', '#d9534f', '#1f4e79', '#8fbc3b', '#e377c2', '#5f6b7a'];
  const OTHER = '#a3acb9';
  let drawn;

  function node(ns, tag, attrs, parent, text) {
    const e = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  const h = (tag, attrs, parent, text) => node(null, tag, attrs, parent, text);
  const s = (tag, attrs, parent, text) => node(NS, tag, attrs, parent, text);
  const title = (e, text) => s('title', {}, e, text);

  // ns as a short time: 850 ns, 12.3 µs, 4.56 ms, 1.23 s.
  function fmt(ns) {
    const a = Math.abs(ns);
    if (a < 1e3) return ns + ' ns';
    if (a < 1e6) return (ns / 1e3).toPrecision(3) + ' µs';
    if (a < 1e9) return (ns / 1e6).toPrecision(3) + ' ms';
    return (ns / 1e9).toPrecision(4) + ' s';
  }
  // An axis tick: as few digits as the step needs (2 ms, 2.5 ms, 250 µs).
  function tick(ns) {
    const a = Math.abs(ns);
    const [d, u] = a < 1e3 ? [1, 'ns'] : a < 1e6 ? [1e3, 'µs'] : a < 1e9 ? [1e6, 'ms'] : [1e9, 's'];
    return String(+(ns / d).toFixed(3)) + ' ' + u;
  }
  // The finest round step (1, 2 or 5 times a power of ten) that covers
  // max in at most 8 steps.
  function niceStep(max) {
    if (!(max > 0)) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(max / 8)));
    for (const m of [1, 2, 5, 10]) if (Math.ceil(max / (m * p)) <= 8) return m * p;
    return 10 * p;
  }
  const pct = (part, whole) => whole > 0 ? (100 * part / whole).toFixed(1) + '%' : '–';
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
  // The least and the most of a list, in a loop: Math.min(...list) spreads
  // every element onto the stack, which a long list overflows.
  function least(a) { return a.reduce((m, x) => x < m ? x : m, Infinity); }
  function most(a) { return a.reduce((m, x) => x > m ? x : m, -Infinity); }
  function shq(s) { return "'" + s.replace(/'/g, "'\\''") + "'"; }
  function width(e) { return Math.max(320, e.getBoundingClientRect().width || 900); }
  const label = d => (d.replay ? 'replay ' : 'crank ' + d.crank + ' ') + d.vat + ' #' + d.deliveryNum +
    ' ' + d.description;

  // The colour mode: where the time went (the parts), by vat or by method.
  const colourMode = () => document.getElementById('colour').value;
  function keyColour(i) { return i >= 0 && i < PALETTE.length - 1 ? PALETTE[i] : OTHER; }
  function colourOf(vat, method) {
    const mode = colourMode();
    if (mode === 'vat') return keyColour(D.names.vats.indexOf(vat));
    if (mode === 'method') return keyColour(D.names.methods.indexOf(method));
    return null;
  }

  function legend() {
    const box = document.getElementById('legend'); clear(box);
    const mode = colourMode();
    const chip = (colour, text) => {
      const sp = h('span', {}, box);
      h('i', {class: 'chip', style: 'background:' + colour}, sp);
      sp.appendChild(document.createTextNode(text));
    };
    if (mode === 'part') {
      chip('var(--pipe)', 'pipe'); chip('var(--worker)', 'worker'); chip('var(--kernel)', 'kernel');
      chip('var(--unmatched)', 'unmatched (replayed upcalls)'); chip('var(--quake)', 'timequake');
      chip('var(--skip)', 'skipped delivery'); chip('#7a4fb5', 'span / mark of the VM');
      return;
    }
    const names = mode === 'vat' ? D.names.vats : D.names.methods;
    names.slice(0, PALETTE.length - 1).forEach((n, i) => chip(keyColour(i), n));
    if (names.length >= PALETTE.length || (mode === 'vat' ? D.vats_not_detailed : D.methods_over))
      chip(OTHER, 'others');
    drawn.legendKeys = Math.min(names.length, PALETTE.length - 1);
  }

  function facts() {
    const S = D.summary, f = document.getElementById('facts');
    document.getElementById('file').textContent = D.title;
    document.title = 'ipcstamp report — ' + D.title;
    const add = (value, label, cls) => {
      const d = h('div', {class: 'fact' + (cls ? ' ' + cls : '')}, f);
      h('b', {}, d, value); h('span', {}, d, label);
    };
    add(S.deliveries.toLocaleString('en'), 'deliveries');
    add(fmt(S.total_ns), 'total time');
    add(pct(S.pipe_ns, S.total_ns), 'pipe');
    // Issue 30: how much of pipe was a receiver waiting for a CPU.
    if (S.wait_deliveries)
      add(pct(S.pipe_wait_ns, S.wait_pipe_ns), 'of pipe: waiting for a CPU', 'warn');
    add(pct(S.worker_ns, S.total_ns), 'worker');
    add(pct(S.kernel_ns, S.total_ns), 'kernel');
    add(String(S.timequakes), 'timequakes', S.timequakes ? 'warn' : '');
    add(String(S.deliveries_skipped), 'skipped deliveries', S.deliveries_skipped ? 'bad' : '');
    if (S.errors) add(String(S.errors), 'error results');
    if (S.restarts) add(String(S.restarts), 'restarts');
    if (S.kernel_stamps === 'records')
      h('p', {class: 'note'}, f, "Pipe on this file: the kernel's stamps are the times it " +
        "wrote its deliver, syscall and result records (in JavaScript, around its own " +
        "marshalling), so pipe holds the kernel's marshalling and waits as well as the transit" +
        (S.wait_deliveries ? "; the worker's waits for a CPU are measured (" +
         fmt(S.pipe_wait_worker_ns) + ")." : "."));
    document.getElementById('footer').textContent =
      'ipcstamp ' + D.version + ' · ' + S.lines.toLocaleString('en') + ' lines read';
  }

  // One stacked bar per vat or method (and all): pipe, worker, kernel,
  // unmatched; the name's chip in the vat or method colour mode.
  function shares() {
    const svg = document.getElementById('shares'); clear(svg);
    const by = document.getElementById('by').value;
    document.getElementById('shares-title').textContent =
      'Share of pipe, worker and kernel per ' + by + (by === 'method' ? ', busiest first' : '') +
      (by !== 'method' && D.vats_left_out ? ' (the ' + D.vats.length + ' busiest vats; ' + D.vats_left_out +
       ' more are left out of the page, in "all" only)' : '');
    const list = by === 'method' ? D.methods.map(m => Object.assign({vat: m.method, key: m.method}, m)) : D.vats;
    const rows = list.concat([Object.assign({vat: 'all'}, D.summary)]);
    const longest = most(rows.map(v => v.vat.length));
    const W = width(svg), L = Math.min(Math.max(120, 8 * longest + 24), 280), R = 96, bw = W - L - R, rh = 26;
    svg.setAttribute('height', rows.length * rh + 4);
    rows.forEach((v, i) => {
      const y = i * rh + 2;
      const c = v.vat === 'all' ? null : by === 'method' ? colourOf(null, v.vat) : colourOf(v.vat, null);
      if (c && colourMode() === by) s('rect', {x: 0, y: y + 5, width: 10, height: 10, rx: 2, fill: c}, svg);
      const t = s('text', {x: c && colourMode() === by ? 16 : 0, y: y + 16,
                           'font-weight': v.vat === 'all' ? 650 : 400}, svg,
                  v.vat.length > 34 ? v.vat.slice(0, 33) + '…' : v.vat);
      title(t, v.vat);
      let x = L;
      // On wall clocks a share can be negative (an offset estimate's
      // error): the bar is the positive shares side by side, the figures
      // stay those of the data.
      const kinds = ['pipe', 'worker', 'kernel', 'unmatched'];
      const whole = kinds.reduce((a, k) => a + Math.max(v[k + '_ns'] || 0, 0), 0);
      for (const k of kinds) {
        const ns = v[k + '_ns'] || 0;
        if (ns <= 0 || whole <= 0) continue;
        const w = bw * ns / whole;
        const r = s('rect', {x: x, y: y, width: Math.max(w, 0.5), height: rh - 6, class: k, rx: 2}, svg);
        title(r, v.vat + ' ' + k + ': ' + fmt(ns) + ' (' + pct(ns, v.total_ns) + ')');
        if (w > 44) s('text', {x: x + 5, y: y + 14, class: 'on-bar'}, svg, pct(ns, v.total_ns));
        x += w;
        if (v.vat !== 'all' && by === 'vat') drawn.shareSegments++;
      }
      s('text', {x: W - R + 8, y: y + 16, class: 'muted'}, svg,
        v.deliveries.toLocaleString('en') + ' · ' + fmt(v.total_ns));
      if (v.vat !== 'all') drawn[by === 'vat' ? 'shares' : 'methodShares']++;
    });
  }

  // A histogram per quantity, bins of 2^(1/4), log time axis; values of 0
  // or less (no log for them) are a bar of their own, left of the axis.
  function hists(vat) {
    const box = document.getElementById('hists'); clear(box);
    const H = vat ? D.hist.vats[vat] : D.hist.all;
    for (const q of ['total', 'pipe', 'worker', 'kernel', 'upcall']) {
      const div = h('div', {}, box);
      const bins = H[q] || [], zero = (H.zero || {})[q] || 0;
      const n = bins.reduce((a, b) => a + b[1], 0) + zero;
      h('h3', {}, div, q + (q === 'upcall' ? ' (each upcall, as the worker waits)' : '') +
        ' · ' + n.toLocaleString('en') + ' values');
      const svg = s('svg', {height: 130}, div);
      body.setAttribute('data-hist-zero-' + q, zero);
      if (!n) { s('text', {x: 0, y: 20, class: 'muted'}, svg, 'none'); continue; }
      const W = width(div) || 340, top = 8, bh = 96;
      const lo = bins.length ? bins[0][0] : 0, hi = bins.length ? bins[bins.length - 1][0] : 0;
      const lo10 = Math.floor(lo / 4 * Math.log10(2)), hi10 = Math.ceil((hi + 1) / 4 * Math.log10(2));
      const zw = zero ? 30 : 0, x0 = 16 + zw, xw = W - 52 - zw, span = Math.max(hi10 - lo10, 1);
      const X = bin => x0 + xw * ((bin / 4) * Math.log10(2) - lo10) / span;
      const max = Math.max(zero, most(bins.map(b => b[1])));
      const cls = q === 'upcall' ? 'pipe' : q === 'total' ? 'unmatched' : q;
      const bar = (x, w, c, text) => {
        const y = top + bh * (1 - c / max);
        const r = s('rect', {x: x, y: y, width: w, height: top + bh - y, class: cls}, svg);
        if (q === 'total') r.style.fill = '#56627a';
        title(r, text + ': ' + c.toLocaleString('en'));
        drawn.histBars++;
        if (q === 'total') drawn.histTotal += c;
      };
      if (zero) {
        bar(2, 16, zero, '0 ns' + (q === 'kernel' ? ' (no upcall)' : '') + ', or less');
        s('text', {x: 10, y: top + bh + 14, 'text-anchor': 'middle', class: 'muted'}, svg, '0');
      }
      if (bins.length) {
        for (let d = lo10; d <= hi10; d++) {
          const x = x0 + xw * (d - lo10) / span;
          s('line', {x1: x, x2: x, y1: top, y2: top + bh, class: 'grid'}, svg);
          s('text', {x: x, y: top + bh + 14, 'text-anchor': 'middle', class: 'muted'}, svg, fmt(Math.pow(10, d)));
        }
      }
      for (const [b, c] of bins) {
        // The whole nanoseconds the bin holds: [2^(b/4), 2^((b+1)/4)).
        const from = Math.ceil(Math.pow(2, b / 4)), to = Math.ceil(Math.pow(2, (b + 1) / 4)) - 1;
        bar(X(b), Math.max(X(b + 1) - X(b) - 1, 1), c, to > from ? fmt(from) + ' – ' + fmt(to) : fmt(from));
      }
    }
  }

  // The slowest deliveries: segments end to end, on one time scale that an
  // outlier cannot flatten: the axis ends at the longest row within 4 times
  // the median row; longer rows are cut there, marked, and say their total.
  // The VM's spans are thin bars under their row, its marks ticks.
  function waterfall(vat) {
    const svg = document.getElementById('waterfall'); clear(svg);
    const rows = D.slowest.filter(d => !vat || d.vat === vat);
    const note = document.getElementById('waterfall-note');
    note.textContent = 'Every segment in time order, coloured by where it went; kernel segments are the upcalls (u1, u2, ...). ' +
      'Click a row for its segments, upcalls, spans and line in the slogfile.';
    if (!rows.length) { svg.setAttribute('height', 24); s('text', {x: 0, y: 16, class: 'muted'}, svg, 'no delivery'); return; }
    const W = width(svg), L = 260, R = 120, bw = W - L - R, rh = 30;
    // Negative segments (wall clocks) are drawn as nothing, so that no row
    // runs past its total.
    const drawnLength = d => d.segments.reduce((a, sg) => a + Math.max(sg[1], 0), 0);
    const lengths = rows.map(drawnLength), sorted = lengths.slice().sort((a, b) => a - b);
    const median = sorted[Math.floor((sorted.length - 1) / 2)];
    const within = sorted.filter(x => x <= 4 * median);
    const step = niceStep(Math.max(within[within.length - 1] || 1, 1));
    const axis = Math.max(step * Math.ceil(Math.max(within[within.length - 1] || 1, 1) / step), step);
    const clipped = lengths.filter(x => x > axis).length;
    if (clipped)
      note.textContent += ' The scale ends at ' + tick(axis) + ': ' + clipped + ' longer row' + (clipped > 1 ? 's are' : ' is') +
        ' cut there (≫) with its total, so that one outlier does not flatten the others.';
    body.dataset.axisNs = String(axis);
    body.dataset.waterfallClipped = String(clipped);
    const X = ns => L + bw * Math.min(Math.max(ns, 0), axis) / axis;
    svg.setAttribute('height', rows.length * rh + 22);
    for (let t = 0; t <= axis + step / 2; t += step) {
      s('line', {x1: X(t), x2: X(t), y1: 0, y2: rows.length * rh, class: 'grid'}, svg);
      s('text', {x: X(t), y: rows.length * rh + 14, 'text-anchor': 'middle', class: 'muted'}, svg, tick(t));
    }
    rows.forEach((d, i) => {
      const y = i * rh + 3;
      const g = s('g', {class: 'row', 'data-line': d.line}, svg);
      s('rect', {x: 0, y: y - 3, width: W, height: rh, class: 'hit'}, g);
      g.addEventListener('click', () => details(d));
      const c = colourOf(d.vat, d.method);
      if (c) s('rect', {x: 0, y: y + 5, width: 10, height: 10, rx: 2, fill: c}, g);
      const text = label(d);
      const t = s('text', {x: c ? 16 : 0, y: y + 15}, g, text.length > 36 ? text.slice(0, 35) + '…' : text);
      title(t, text + ' (line ' + d.line + '): click for details');
      if (d.timequake) {
        const q = s('path', {d: `M${L - 14},${y + 4} l6,0 l-3,7 l5,0 l-8,9 l2,-7 l-4,0 z`, class: 'quake'}, g);
        title(q, 'timequake during this delivery'); drawn.timequakeMarks++;
      }
      let at = 0, up = 0;
      for (const [kind, ns] of d.segments) {
        const from = at;
        at += Math.max(ns, 0);
        if (kind === 'upcall' || kind === 'unmatched') up++;
        const x = X(from), w = X(at) - x;
        const r = s('rect', {x: x, y: y, width: Math.max(w, 0.6), height: rh - 12, class: KIND[kind] || 'unmatched'}, g);
        title(r, (kind === 'kernel' ? 'upcall ' + up + ': kernel ' : kind + ' ') + fmt(ns));
        if ((kind === 'kernel' || kind === 'unmatched') && w >= 18)
          s('text', {x: x + w / 2, y: y + 13, 'text-anchor': 'middle', class: 'on-bar'}, g, 'u' + up);
        drawn.waterfallSegments++;
      }
      const cut = lengths[i] > axis;
      if (cut) {
        const x = X(axis);
        s('path', {d: `M${x - 7},${y + 20} l5,-22 M${x - 2},${y + 20} l5,-22`, class: 'clip'}, g);
      }
      // The VM's spans and marks, from the worker's d (after the send).
      const d0 = d.segments.length ? Math.max(d.segments[0][1], 0) : 0;
      for (const m of d.marks || []) {
        const x = X(d0 + m.at_ns);
        if (m.kind === 'span') {
          const r = s('rect', {x: x, y: y + rh - 11 + Math.min(m.depth, 2), width: Math.max(X(d0 + m.at_ns + m.dur_ns) - x, 0.6),
                               height: 2.5, class: 'span'}, g);
          title(r, 'span ' + m.name + ' ' + fmt(m.dur_ns) + ' at +' + fmt(m.at_ns));
          drawn.spanBars++;
        } else {
          const l = s('line', {x1: x, x2: x, y1: y + rh - 13, y2: y + rh - 7, class: 'mark'}, g);
          title(l, 'mark ' + m.name + ' at +' + fmt(m.at_ns));
          drawn.markTicks++;
        }
      }
      s('text', {x: X(Math.min(lengths[i], axis)) + 6, y: y + 14, class: 'muted', 'font-weight': cut ? 650 : 400}, g,
        (cut ? '≫ ' : '') + fmt(d.total_ns) + (d.segments_left_out ? ' (+' + d.segments_left_out + ' segments)' : ''));
      drawn.waterfallRows++;
    });
  }

  // One delivery whole: its segments in order with the upcall each is
  // part of, its spans and marks, and where it is in the slogfile.
  function details(d) {
    const sec = document.getElementById('details'), box = document.getElementById('details-body');
    clear(box);
    sec.hidden = false;
    document.getElementById('details-title').textContent = label(d) + ' — ' + fmt(d.total_ns);
    for (const r of document.querySelectorAll('#waterfall .row'))
      r.classList.toggle('picked', Number(r.dataset.line) === d.line);
    const where = h('p', {}, box);
    const file = D.title === '-' ? 'the standard input' : D.title;
    where.appendChild(document.createTextNode('Its deliver record is line ' + d.line + ' of ' + file +
      (D.title === '-' ? '.' : ': ')));
    // The file name shell-quoted: pasted, a hostile name stays one word.
    if (D.title !== '-') h('code', {}, where, "sed -n '" + d.line + "p' -- " + shq(D.title));
    h('p', {}, box, 'total ' + fmt(d.total_ns) + ' = pipe ' + fmt(d.pipe_ns) + ' + worker ' + fmt(d.worker_ns) +
      ' + kernel ' + fmt(d.kernel_ns) + (d.unmatched_ns ? ' + unmatched ' + fmt(d.unmatched_ns) : '') +
      '; ' + d.upcalls + ' upcall' + (d.upcalls === 1 ? '' : 's') + '; ' + d.clock + ' clock' +
      (d.ok ? '' : '; the worker answered with an error') + (d.timequake ? '; a timequake' : ''));
    h('h3', {}, box, 'Segments');
    const t = h('table', {id: 'details-segments'}, box);
    const head = h('tr', {}, t);
    for (const c of ['#', 'segment', 'upcall', 'starts at', 'length', 'ns']) h('th', {}, head, c);
    let at = 0, up = 0;
    d.segments.forEach(([kind, ns], i) => {
      if (kind === 'upcall' || kind === 'unmatched') up++;
      const r = h('tr', {'data-kind': kind, 'data-ns': ns}, t);
      h('td', {class: 'n'}, r, String(i + 1));
      const k = h('td', {class: 'k'}, r);
      h('i', {style: 'background:' + (PART[KIND[kind]] || PART.unmatched)}, k);
      k.appendChild(document.createTextNode(kind));
      h('td', {class: 'n'}, r, kind === 'send' || kind === 'result' || (kind === 'worker') ? '' : 'u' + up);
      h('td', {class: 'n'}, r, '+' + fmt(at));
      h('td', {class: 'n'}, r, fmt(ns));
      h('td', {class: 'n'}, r, ns.toLocaleString('en'));
      at += ns;
    });
    if (d.segments_left_out)
      h('p', {class: 'note'}, box, d.segments_left_out + ' more segments are left out of the page: ' +
        'ipcstamp report --slowest has them all.');
    const marks = d.marks || [];
    h('h3', {}, box, 'Spans and marks of the VM');
    if (!marks.length) {
      h('p', {class: 'empty'}, box, 'None: the worker recorded no mark during this delivery.');
    } else {
      const m = h('table', {id: 'details-marks'}, box);
      const mh = h('tr', {}, m);
      for (const c of ['kind', 'name', 'worker run', 'at (since the worker\'s d)', 'length']) h('th', {}, mh, c);
      for (const k of marks) {
        const r = h('tr', {'data-kind': k.kind, 'data-name': k.name, 'data-worker': k.worker, 'data-depth': k.depth,
                           'data-at': k.at_ns, 'data-dur': k.kind === 'span' ? k.dur_ns : ''}, m);
        h('td', {}, r, k.kind);
        h('td', {class: 'name', style: 'padding-left:' + 14 * Math.min(k.depth, 8) + 'px'}, r, k.name);
        h('td', {class: 'n'}, r, String(k.worker));
        h('td', {class: 'n'}, r, '+' + fmt(k.at_ns));
        h('td', {class: 'n'}, r, k.kind === 'span' ? fmt(k.dur_ns) : '');
      }
      if (d.marks_left_out) h('p', {class: 'note'}, box, d.marks_left_out + ' more are left out of the page.');
    }
    body.dataset.detailsLine = String(d.line);
    body.dataset.detailsSegments = String(d.segments.length);
    body.dataset.detailsMarks = String(marks.length);
  }

  // Total per delivery against time since the first record, log scale:
  // each bucket of consecutive deliveries is its smallest and largest.
  // Totals of 0 or less (no log) lie on a line of their own under it.
  function series(vat) {
    const svg = document.getElementById('series'); clear(svg);
    const S = vat ? D.series.vats[vat] : D.series.all;
    const note = document.getElementById('series-note');
    note.textContent = S.width > 1
      ? 'Each mark is the fastest or the slowest of ' + S.width + ' consecutive deliveries (all ' +
        'extremes kept). ' : 'Each dot is a delivery. ';
    note.textContent += 'Triangles above: timequakes; ticks below: skipped deliveries. Hover for details; ' +
      'a click on one of the slowest opens it.';
    const pts = [];
    for (const b of S.buckets) for (let i = 1; i < b.length; i++) pts.push(b[i]);
    const zeros = pts.filter(p => p[1] <= 0).length;
    const W = width(svg), L = 64, R = 16, T = 16, Hh = 220, Z = zeros ? 18 : 0, B = 40 + Z;
    svg.setAttribute('height', T + Hh + B);
    if (!pts.length) { s('text', {x: L, y: T + 20, class: 'muted'}, svg, 'no delivery'); return; }
    const quakes = D.timequakes.filter(q => !vat || q[3] === vat), skips = vat ? [] : D.skips;
    const ts = pts.map(p => p[0]).concat(quakes.map(q => q[0]), skips.map(k => k[0]));
    const t0 = least(ts), t1 = Math.max(most(ts), t0 + 1);
    const v = pts.filter(p => p[1] > 0).map(p => p[1]);
    const y0 = v.length ? Math.floor(Math.log10(least(v))) : 0;
    const y1 = Math.max(v.length ? Math.ceil(Math.log10(most(v))) : 1, y0 + 1);
    const X = t => L + (W - L - R) * (t - t0) / (t1 - t0);
    const Y = ns => ns <= 0 ? T + Hh + Z - 4 : T + Hh * (1 - (Math.log10(ns) - y0) / (y1 - y0));
    for (let d = y0; d <= y1; d++) {
      s('line', {x1: L, x2: W - R, y1: Y(Math.pow(10, d)), y2: Y(Math.pow(10, d)), class: 'grid'}, svg);
      s('text', {x: L - 6, y: Y(Math.pow(10, d)) + 4, 'text-anchor': 'end', class: 'muted'}, svg, fmt(Math.pow(10, d)));
    }
    if (zeros) s('text', {x: L - 6, y: Y(0) + 4, 'text-anchor': 'end', class: 'muted'}, svg, '0');
    for (let i = 0; i <= 5; i++) {
      const t = t0 + (t1 - t0) * i / 5;
      s('text', {x: X(t), y: T + Hh + Z + 16, 'text-anchor': 'middle', class: 'muted'}, svg, fmt(Math.round(t)));
    }
    s('text', {x: (L + W - R) / 2, y: T + Hh + Z + 33, 'text-anchor': 'middle', class: 'muted'}, svg,
      'time since the first record');
    const slowByLine = new Map(D.slowest.map(d => [d.line, d]));
    const used = new Set();
    let top = pts[0];
    for (const b of S.buckets) {
      if (b.length > 2)
        s('line', {x1: X(b[1][0]), x2: X(b[2][0]), y1: Y(b[1][1]), y2: Y(b[2][1]), stroke: '#b8c2d3', 'stroke-width': 1}, svg);
      for (let i = 1; i < b.length; i++) {
        const p = b[i];
        const mode = colourMode();
        const fill = mode === 'vat' ? keyColour(p[3]) : mode === 'method' ? keyColour(p[4]) : '#3b7dd8';
        used.add(fill);
        const c = s('circle', {cx: X(p[0]), cy: Y(p[1]), r: 2.4, fill: fill, 'fill-opacity': 0.8}, svg);
        const slow = slowByLine.get(p[2]);
        title(c, fmt(p[1]) + ' at ' + fmt(p[0]) + ' (line ' + p[2] + ')' +
          (p[3] >= 0 ? ', ' + D.names.vats[p[3]] : '') + (p[4] >= 0 ? ' ' + D.names.methods[p[4]] : ''));
        if (slow) { c.style.cursor = 'pointer'; c.addEventListener('click', () => details(slow)); }
        if (p[1] > top[1]) top = p;
        drawn.seriesPoints++;
        if (p[1] <= 0) drawn.seriesZero++;
      }
    }
    drawn.colours = used.size;
    const hx = X(top[0]), hy = Y(top[1]);
    s('circle', {cx: hx, cy: hy, r: 5, fill: 'none', stroke: '#c62828', 'stroke-width': 1.5}, svg);
    s('text', {x: hx + (hx > W - 200 ? -8 : 8), y: hy + (hy < T + 14 ? 14 : -6),
               'text-anchor': hx > W - 200 ? 'end' : 'start', 'font-weight': 600, class: 'halo'}, svg,
      'slowest: ' + fmt(top[1]) + ' (line ' + top[2] + ')');
    for (const q of quakes) {
      const x = X(q[0]);
      const m = s('path', {d: `M${x - 5},${T - 12} l10,0 l-5,8 z`, class: 'quake'}, svg);
      title(m, 'timequake: wall and mono differ by ' + fmt(q[2]) + ' (' + q[3] + ', line ' + q[1] + ')');
      drawn.timequakeMarks++;
    }
    for (const k of skips) {
      const x = X(k[0]);
      const m = s('line', {x1: x, x2: x, y1: T + Hh + Z - 2, y2: T + Hh + Z + 6, class: 'skip'}, svg);
      const f = n => k[1 + D.skip_fields.indexOf(n)];
      title(m, 'skipped (line ' + f('line') + '): ' + f('message') + (f('detail') ? ': ' + f('detail') : ''));
      drawn.skipMarks++;
    }
  }

  // The VM's own spans and marks by name, as the text report's table.
  function marksTable() {
    const box = document.getElementById('marks');
    if (!D.marks.length) {
      h('p', {class: 'empty'}, box, 'No delivery carried marks or spans of the VM (metering v2).');
      return;
    }
    const t = h('table', {}, box);
    const head = h('tr', {}, t);
    for (const c of ['name', 'marks', 'spans', 'span total', 'span mean', 'span max']) h('th', {}, head, c);
    for (const m of D.marks) {
      const r = h('tr', {'data-name': m.name}, t);
      h('td', {class: 'name'}, r, m.name);
      h('td', {class: 'n'}, r, m.marks.toLocaleString('en'));
      h('td', {class: 'n'}, r, m.spans.toLocaleString('en'));
      h('td', {class: 'n'}, r, m.spans ? fmt(m.span_ns) : '');
      h('td', {class: 'n'}, r, m.spans ? fmt(Math.round(m.span_ns / m.spans)) : '');
      h('td', {class: 'n'}, r, m.spans ? fmt(m.span_max_ns) : '');
    }
    if (D.marks_over)
      h('p', {class: 'note'}, box, D.marks_over + ' more under names past the first 1024.');
    body.dataset.markNames = String(D.marks.length);
  }

  function skipped() {
    const box = document.getElementById('skipped');
    const keys = Object.keys(D.skipped);
    if (!keys.length) { h('p', {class: 'empty'}, box, 'Nothing was skipped.'); return; }
    const t = h('table', {}, box);
    for (const k of keys) {
      const r = h('tr', {}, t);
      h('td', {class: 'n'}, r, D.skipped[k].toLocaleString('en'));
      h('td', {}, r, k);
    }
  }

  function draw() {
    const vat = document.getElementById('vat').value;
    drawn = {shares: 0, methodShares: 0, shareSegments: 0, histBars: 0, histTotal: 0, waterfallRows: 0,
             waterfallSegments: 0, seriesPoints: 0, seriesZero: 0, timequakeMarks: 0, skipMarks: 0,
             spanBars: 0, markTicks: 0, colours: 0, legendKeys: 0};
    legend(); shares(); series(vat); waterfall(vat); hists(vat);
    for (const k in drawn) body.setAttribute('data-' + k.replace(/[A-Z]/g, c => '-' + c.toLowerCase()), drawn[k]);
    body.dataset.vat = vat;
    body.dataset.colour = colourMode();
    body.dataset.by = document.getElementById('by').value;
  }

  // The address keeps the view: #vat=v2&colour=method&by=method&line=22.
  function fromHash() {
    const o = {};
    for (const kv of location.hash.replace(/^#/, '').split('&')) {
      const i = kv.indexOf('=');
      if (i > 0) o[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1));
    }
    return o;
  }
  function toHash() {
    const parts = [];
    for (const id of ['vat', 'colour', 'by']) {
      const v = document.getElementById(id).value;
      if (v && !(id === 'colour' && v === 'part') && !(id === 'by' && v === D.by)) parts.push(id + '=' + encodeURIComponent(v));
    }
    history.replaceState(null, '', '#' + parts.join('&'));
  }

  facts();
  skipped();
  marksTable();
  const pick = document.getElementById('vat');
  // Vats past the first 64 have no series of their own: they are in all.
  for (const name of Object.keys(D.series.vats)) h('option', {value: name}, pick, name);
  const want = fromHash();
  document.getElementById('by').value = D.by;
  for (const id of ['vat', 'colour', 'by']) {
    const e = document.getElementById(id);
    if (want[id] !== undefined) e.value = want[id];
    if (e.selectedIndex < 0) e.value = id === 'vat' ? '' : id === 'colour' ? 'part' : D.by;
    e.addEventListener('change', () => { toHash(); draw(); });
  }
  window.addEventListener('resize', draw);
  draw();
  if (want.line !== undefined) {
    const d = D.slowest.find(x => String(x.line) === want.line);
    if (d) details(d);
  }
  if (!errors.length) body.dataset.status = 'ok';
})();
