#!/usr/bin/env node
// strip-ipcstamp.mjs: a SwingSet slogfile as an exact-mode node would have
// written it (IPCSTAMP_XS_METERING=xsnap, docs/xsnap.md): the metering of
// every deliver-result without its "ipcstamp" member, nothing else
// changed (the text is cut, not re-serialised, so every other byte stays).
//
//   node strip-ipcstamp.mjs IN.slog OUT.slog
import fs from 'node:fs';

const [inp, out] = process.argv.slice(2);
if (!out) {
  console.error('usage: node strip-ipcstamp.mjs IN.slog OUT.slog');
  process.exit(2);
}
// The end of the JSON value starting at s[i] ('{'): strings skipped.
const valueEnd = (s, i) => {
  let depth = 0;
  for (let j = i; j < s.length; j += 1) {
    const c = s[j];
    if (c === '"') {
      for (j += 1; s[j] !== '"'; j += 1) if (s[j] === '\\') j += 1;
    } else if (c === '{' || c === '[') {
      depth += 1;
    } else if ((c === '}' || c === ']') && (depth -= 1) === 0) {
      return j + 1;
    }
  }
  throw Error('unbalanced');
};
const key = ',"ipcstamp":{';
const lines = fs.readFileSync(inp, 'utf8').split('\n').map(line => {
  if (!line.startsWith('{"type":"deliver-result"')) return line;
  const i = line.indexOf(key);
  return i < 0 ? line : line.slice(0, i) + line.slice(valueEnd(line, i + key.length - 1));
});
fs.writeFileSync(out, lines.join('\n'));
