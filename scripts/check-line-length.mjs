#!/usr/bin/env node
/**
 * No source line over 140 characters (the formatter's line width). The formatter wraps code; long
 * strings and comments it leaves alone, so this lists them. A line that is one regular-expression
 * literal is let through: it cannot be wrapped without rewriting it. Exit 1 with one line per offender.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const MAX = 140;
const REGEX_LITERAL = /^\s*\/.+\/[dgimsuvy]*[;,]?$/;
const ROOTS = ['src', 'test', 'bench', 'scripts', 'examples'];

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (/\.(ts|mts|mjs|js)$/.test(path) && !path.endsWith('.d.ts')) yield path;
  }
}

const long = [];
for (const root of ROOTS) {
  for (const file of files(root)) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if ([...line].length > MAX && !REGEX_LITERAL.test(line)) long.push(`${file}:${i + 1}: ${[...line].length} characters`);
      });
  }
}
for (const line of long) console.error(line);
if (long.length > 0) {
  console.error(`${long.length} line(s) over ${MAX} characters: wrap the string or comment`);
  process.exit(1);
}
console.log(`no line over ${MAX} characters`);
