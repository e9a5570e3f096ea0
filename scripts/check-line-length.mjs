#!/usr/bin/env node
/**
 * No source line over 140 characters (the formatter's line width). The formatter wraps code; long
 * strings and comments it leaves alone, so this lists them. A line that is one regular-expression
 * literal is let through: it cannot be wrapped without rewriting it; so is a test's title (the
 * requirements table names tests by their titles). Exit 1 with one line per offender.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const MAX = 140;
const REGEX_LITERAL = /^\s*\/.+\/[dgimsuvy]*(?:[;,]|\.(?:test|exec)\()?$/;
const TEST_TITLE = /^\s*(?:it|test|describe)(?:\.\w+)*\(\s*(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"),/;
const LONE_TITLE = /^\s*(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"),$/;
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
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      const exempt =
        REGEX_LITERAL.test(line) ||
        TEST_TITLE.test(line) ||
        (LONE_TITLE.test(line) && /\b(?:it|test|describe)\($/.test(lines[i - 1] ?? ''));
      if ([...line].length > MAX && !exempt) long.push(`${file}:${i + 1}: ${[...line].length} characters`);
    });
  }
}
for (const line of long) console.error(line);
if (long.length > 0) {
  console.error(`${long.length} line(s) over ${MAX} characters: wrap the string or comment`);
  process.exit(1);
}
console.log(`no line over ${MAX} characters`);
