// diff_page.js PAGE ROW: runs the script of `ipcstamp diff --format html`
// on a stub DOM, clicks heat map row ROW's first cell, prints the detail.
const fs = require('fs');
const html = fs.readFileSync(process.argv[2], 'utf8');
const m = html.match(/<script>\n([\s\S]*)<\/script>/);
function node(tag) {
  const n = {tag, kids: [], style: {}, className: '', textContent: '',
    append(...k) { this.kids.push(...k); }, prepend(...k) { this.kids.unshift(...k); },
    replaceChildren() { this.kids = []; },
    insertRow() { const r = node('tr'); this.kids.push(r); return r; },
    get firstChild() { return this.kids[0]; },
    text() { return [this.textContent, ...this.kids.map(k => k.text())].join(' '); }};
  return n;
}
const ids = {};
global.document = {createElement: node,
  getElementById: id => ids[id] || (ids[id] = node('div'))};
eval(m[1]);
const row = ids.heat.kids[1 + Number(process.argv[3])];
row.kids[2].onclick();
console.log(ids.detail.text().replace(/\s+/g, ' '));
