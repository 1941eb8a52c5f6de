#!/usr/bin/env node
// dump-store.mjs: every row of a swing-store's SQLite database, one line
// each, in a canonical order, to compare two kernels' stores
// (tests/interop/xs-swingset.test).  Blobs (heap snapshots, bundles) are
// written as their SHA-256.
//
//   node dump-store.mjs SWINGSTORE_DIR > dump.txt
//
// Run from a folder whose node_modules has better-sqlite3 (this project's).
import crypto from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node dump-store.mjs SWINGSTORE_DIR');
  process.exit(2);
}
const db = new Database(path.join(dir, 'swingstore.sqlite'), { readonly: true, fileMustExist: true });
const tables = db
  .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
  .all()
  .map(r => r.name);
const lines = [];
for (const t of tables) {
  for (const row of db.prepare(`SELECT * FROM "${t}"`).all()) {
    const out = {};
    for (const [k, v] of Object.entries(row)) {
      out[k] = Buffer.isBuffer(v) ? `sha256:${crypto.createHash('sha256').update(v).digest('hex')}` : v;
    }
    lines.push(`${t}\t${JSON.stringify(out)}`);
  }
}
lines.sort();
process.stdout.write(`tables\t${JSON.stringify(tables)}\n${lines.join('\n')}\n`);
