#!/usr/bin/env node
/**
 * The arrows of the module map that carry types only: a wire codec speaks the flow book's
 * vocabulary but runs none of it. dependency-cruiser checks which folder imports which (its
 * TypeScript front end predates TypeScript 7, so it cannot tell `import type` apart); this checks
 * that these imports are `import type`. Exit 1 with one line per offending import.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** [folder whose files are checked, imports that must be type-only]. */
const TYPE_ONLY = [['src/wire', /['"]\.\.\/flow\/[^'"]+['"]/]];

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

const problems = [];
for (const [dir, target] of TYPE_ONLY) {
  for (const file of files(dir)) {
    const source = readFileSync(file, 'utf8');
    for (const statement of source.matchAll(/^(?:import|export)\b[^;]*?from\s+['"][^'"]+['"]/gms)) {
      const text = statement[0];
      if (!target.test(text)) continue;
      const typeOnly =
        /^(?:import|export)\s+type\b/.test(text) ||
        (/^import\s*\{([^}]*)\}/s.test(text) &&
          text
            .match(/^import\s*\{([^}]*)\}/s)[1]
            .split(',')
            .every((s) => s.trim() === '' || s.trim().startsWith('type ')));
      if (!typeOnly) problems.push(`${relative(process.cwd(), file)}: "${text.replace(/\s+/g, ' ')}" must be an import type`);
    }
  }
}
for (const line of problems) console.error(line);
if (problems.length > 0) process.exit(1);
console.log(`type-only imports: ${TYPE_ONLY.map(([dir]) => dir).join(', ')} ok`);
