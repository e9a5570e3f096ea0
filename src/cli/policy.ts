import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { examplePolicy } from '../policy/example.js';
import { policyJsonSchema } from '../policy/json-schema.js';
import { loadPolicy } from '../policy/policy.js';
import { GuardError } from '../protocol/errors.js';
import { Exit, UsageError, parseCommandArgs, writeLine, type CliIo } from './io.js';

const HELP = `usage:
  mcp-elicitation-guard policy validate FILE      check a policy file; prints the effective policy
  mcp-elicitation-guard policy init [FILE]        write an example policy (default: mcp-elicitation-guard.policy.json)
  mcp-elicitation-guard policy schema [--out F]   print (or write) the policy JSON Schema

exit codes: 0 valid / written, 1 invalid policy, 2 bad usage or unreadable file`;

/** `policy validate | init | schema`. */
export async function policyCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    writeLine(sub === undefined ? io.stderr : io.stdout, HELP);
    return sub === undefined ? Exit.usage : Exit.ok;
  }
  switch (sub) {
    case 'validate':
      return validate(rest, io);
    case 'init':
      return init(rest, io);
    case 'schema':
      return schema(rest, io);
    default:
      throw new UsageError(`unknown policy subcommand "${sub}" (validate, init, schema)`);
  }
}

function validate(argv: readonly string[], io: CliIo): number {
  const { positionals } = parseCommandArgs(argv, {});
  if (positionals.length !== 1) throw new UsageError('policy validate takes exactly one FILE');
  const file = resolve(io.cwd, positionals[0]!);
  try {
    const document = loadPolicy(file);
    writeLine(io.stdout, JSON.stringify({ valid: true, file, effective: document.base, servers: document.servers }, null, 2));
    return Exit.ok;
  } catch (error) {
    if (!GuardError.is(error)) throw error;
    writeLine(io.stderr, `${error.code}: ${error.message}`);
    return error.code === 'E_POLICY_UNREADABLE' ? Exit.usage : Exit.blocked;
  }
}

function init(argv: readonly string[], io: CliIo): number {
  const { positionals, values } = parseCommandArgs(argv, { force: { type: 'boolean' } });
  if (positionals.length > 1) throw new UsageError('policy init takes at most one FILE');
  const file = resolve(io.cwd, positionals[0] ?? 'mcp-elicitation-guard.policy.json');
  if (existsSync(file) && values.force !== true) throw new UsageError(`${file} exists; pass --force to overwrite it`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ ...examplePolicy(), $schema: schemaReference(file) }, null, 2) + '\n');
  writeLine(io.stdout, `wrote ${file}`);
  return Exit.ok;
}

/** The package's own policy.schema.json, beside dist/ (in a clone, an install, or a global install). */
const PACKAGE_SCHEMA = fileURLToPath(new URL('../../policy.schema.json', import.meta.url));
const PUBLISHED_SCHEMA = policyJsonSchema.$id as string;

/**
 * The `$schema` a new policy file gets: this package's schema file, relative to where the policy is
 * written (so editors resolve it from the file's location), or the published URL when there is no
 * local file or no relative path to it (another drive).
 */
export function schemaReference(policyFile: string): string {
  if (!existsSync(PACKAGE_SCHEMA)) return PUBLISHED_SCHEMA;
  const path = relative(dirname(policyFile), PACKAGE_SCHEMA);
  if (isAbsolute(path)) return PUBLISHED_SCHEMA;
  const posix = path.split(sep).join('/');
  return posix.startsWith('.') ? posix : `./${posix}`;
}

function schema(argv: readonly string[], io: CliIo): number {
  const { values, positionals } = parseCommandArgs(argv, { out: { type: 'string' } });
  if (positionals.length > 0) throw new UsageError('policy schema takes no positional arguments');
  const text = JSON.stringify(policyJsonSchema, null, 2) + '\n';
  if (values.out !== undefined) {
    writeFileSync(resolve(io.cwd, values.out), text);
    return Exit.ok;
  }
  io.stdout.write(text);
  return Exit.ok;
}
