import { existsSync, readdirSync, readFileSync } from 'node:fs';

const FIXTURES = new URL('../../fixtures/urls/', import.meta.url);

/** The `url` of every row of every `.jsonl` file under `dir` (default `fixtures/urls/`, sub-folders included). */
export function fixtureUrls(dir: URL = FIXTURES): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) out.push(...fixtureUrls(new URL(`${entry.name}/`, dir)));
    else if (entry.name.endsWith('.jsonl')) {
      for (const line of readFileSync(new URL(entry.name, dir), 'utf8').split('\n'))
        if (line.trim() !== '') out.push((JSON.parse(line) as { url: string }).url);
    }
  }
  return out;
}
