// Entry of the headless CLI (docs/contracts.md §2). bin/dataset-sync.mjs runs
// this file from a bundle (out/cli/main.mjs) or through tsx.
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { purgeWithdrawnCommand } from './purge-withdrawn';
import { collectionsCommand, loginCommand, logoutCommand, MissingKeyError, syncCommand, verifyCommand, type Io } from './commands';
import { commandUsage, isCommand, USAGE, UsageError } from './usage';

/** package.json's version: two folders up from both this source and its bundle (out/cli/main.mjs). */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}

// Peak memory (issue #21): V8 lets the old generation grow to up to 4x what survived the last
// full collection before it collects again. What a sync keeps alive stays small (a heap snapshot
// at the end of a 40,000-set sync: 22 MB), but the end reads every record several times to write
// the dataset files, and that garbage drove the heap to 90-120 MB and the process past 250 MB at
// 100,000 sets. A growth of 20 % collects sooner: at 10,000 sets the heap peaked at 68 MB against
// 91 MB and the process at 164 MB against 182 MB, for no measurable CPU (21.3 s against 22.7 s).
// Set at run time, before any sync allocates; the flag is read at each collection.
setFlagsFromString('--heap-growing-percent=20');

const wantsHelp = (args: string[]) => args.includes('--help') || args.includes('-h');

async function demoCommand(argv: string[]): Promise<number> {
  // The one place src-main touches the reference service, and only when asked to.
  // A computed specifier keeps the type checker and bundlers from pulling the service into the app.
  const specifier = '../../src-service/cli-demo';
  const mod = (await import(specifier)) as { runDemoCommand(argv: string[]): Promise<number | void> };
  const code = await mod.runDemoCommand(argv);
  return typeof code === 'number' ? code : 0;
}

export async function main(argv: string[], io: Io = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (isCommand(command) && wantsHelp(rest)) {
      io.stdout.write(commandUsage(command));
      return 0;
    }
    switch (command) {
      case 'sync':
        return await syncCommand(rest, io);
      case 'verify':
        return await verifyCommand(rest, io);
      case 'purge-withdrawn':
        return await purgeWithdrawnCommand(rest, io);
      case 'collections':
        return await collectionsCommand(rest, io);
      case 'login':
        return await loginCommand(rest, io);
      case 'logout':
        return await logoutCommand(rest, io);
      case 'demo':
        return await demoCommand(rest);
      case '--help':
      case '-h':
      case 'help':
        io.stdout.write(isCommand(rest[0]) ? commandUsage(rest[0]) : USAGE);
        return 0;
      case '--version':
      case '-V':
      case 'version':
        io.stdout.write(`dataset-sync ${version()}\n`);
        return 0;
      default:
        throw new UsageError(command === undefined ? 'no command given' : `unknown command "${command}"`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      // The command's own usage, not every command's: the mistake stays on screen.
      const help = isCommand(command) ? `${commandUsage(command).split('\n')[0]!}\n(dataset-sync ${command} --help for every option)\n` : USAGE;
      io.stderr.write(`dataset-sync: ${e.message}\n\n${help}`);
      return 2;
    }
    if (e instanceof MissingKeyError) {
      io.stderr.write(`dataset-sync: ${e.message}\n`);
      return 2;
    }
    io.stderr.write(`dataset-sync: unexpected error: ${(e as Error)?.stack ?? String(e)}\n`);
    return 1;
  }
}

const code = await main(process.argv.slice(2));
// Let stdout drain (NDJSON consumers read to the end) before exiting.
process.stdout.write('', () => process.exit(code));
