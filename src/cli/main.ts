#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { auditCommand } from './audit.js';
import { auditSchemaCommand } from './audit-schema.js';
import { checkUrlCommand } from './check-url.js';
import { doctorCommand } from './doctor.js';
import { evalCommand } from './eval.js';
import { installCommand, uninstallCommand } from './install.js';
import { Exit, UsageError, isMainModule, writeLine, type CliIo, type Command } from './io.js';
import { ledgerCommand } from './ledger.js';
import { policyCommand } from './policy.js';
import { proxyCommand } from './proxy.js';

const commands: Record<string, { run: Command; summary: string }> = {
  'audit-schema': { run: auditSchemaCommand, summary: 'audit-schema [FILE|-] [--policy FILE] [--jsonl]' },
  'check-url': { run: checkUrlCommand, summary: 'check-url [--policy FILE] [--json] URL... | check-url --jsonl < urls.jsonl' },
  eval: { run: evalCommand, summary: 'eval --urls FILE.jsonl [--legit FILE.txt] [--forms FILE.jsonl] [--policy FILE] [--json]' },
  policy: { run: policyCommand, summary: 'policy validate FILE | policy init [FILE] | policy schema [--out FILE]' },
  proxy: {
    run: proxyCommand,
    summary: 'proxy [--policy FILE] [--ledger FILE] [--audit FILE] [--subject ID] [--ui [PORT]] -- <server command> [args...]',
  },
  ledger: {
    run: ledgerCommand,
    summary: 'ledger list | show ID | recover ID | confirm ID | cancel ID [--ledger FILE] [--json] | serve [--port N] [--open]',
  },
  install: { run: installCommand, summary: 'install --host claude-desktop|vscode|cursor [--config FILE] [--policy FILE] [--dry-run]' },
  audit: { run: auditCommand, summary: 'audit show|tail|summary FILE [--server KEY] [--type T] [--since TIME] [--until TIME] [-f]' },
  doctor: { run: doctorCommand, summary: 'doctor [--policy FILE] [--ledger FILE] [--host NAME [--config FILE]]' },
  uninstall: { run: uninstallCommand, summary: 'uninstall --host claude-desktop|vscode|cursor [--config FILE] [--dry-run]' },
};

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function usage(): string {
  const lines = ['usage: mcp-elicitation-guard <command> [options]', '', 'commands:'];
  for (const [name, { summary }] of Object.entries(commands)) lines.push(`  ${name.padEnd(13)} ${summary}`);
  lines.push('', 'options:', '  --help        show this help (also: <command> --help)', '  --version     print the version');
  return lines.join('\n');
}

/** Runs the CLI with the given arguments; returns the exit code. Never throws. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    writeLine(name === undefined ? io.stderr : io.stdout, usage());
    return name === undefined ? Exit.usage : Exit.ok;
  }
  if (name === '--version' || name === '-v') {
    writeLine(io.stdout, version());
    return Exit.ok;
  }
  const command = commands[name];
  if (command === undefined) {
    writeLine(io.stderr, `mcp-elicitation-guard: unknown command "${name}"\n\n${usage()}`);
    return Exit.usage;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      writeLine(io.stderr, `mcp-elicitation-guard ${name}: ${error.message}\nrun "mcp-elicitation-guard ${name} --help" for usage`);
      return Exit.usage;
    }
    const code = (error as { code?: unknown }).code;
    writeLine(io.stderr, `mcp-elicitation-guard ${name}: ${typeof code === 'string' ? `${code}: ` : ''}${(error as Error).message}`);
    return Exit.usage;
  }
}

if (isMainModule(import.meta.url)) {
  const io: CliIo = {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    isTTY: process.stdout.isTTY === true,
    cwd: process.cwd(),
  };
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`mcp-elicitation-guard: ${(error as Error).message}\n`);
      process.exitCode = Exit.usage;
    },
  );
}
