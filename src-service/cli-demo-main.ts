import { runDemoCommand } from './cli-demo';

process.exitCode = await runDemoCommand(process.argv.slice(2));
