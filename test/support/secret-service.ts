// Whether the real-keychain tests can run here, and if not, why. They need a Secret Service:
// keytar built, plus D-Bus and gnome-keyring, which scripts/with-keyring.sh (`npm test`,
// `.ci/run`) starts privately and then sets DATASET_SYNC_REAL_KEYRING=1. Elsewhere those tests
// report themselves skipped with the reason in their name instead of passing silently.
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function keytarLoads(): boolean {
  try {
    createRequire(import.meta.url)('keytar');
    return true;
  } catch {
    return false;
  }
}

function missingSecretService(): string | null {
  const tools = ['dbus-run-session', 'gnome-keyring-daemon'].filter((tool) => !onPath(tool));
  if (tools.length > 0) return `no Secret Service: ${tools.join(' and ')} not installed`;
  if (process.env.DATASET_SYNC_REAL_KEYRING !== '1') return 'no Secret Service: run through `npm test` (scripts/with-keyring.sh starts one)';
  if (!keytarLoads()) return 'the keytar native module is not built';
  return null;
}

/** null when the real keychain tests can run, else why not. */
export const SECRET_SERVICE_MISSING = missingSecretService();

/** A test name that says why it is skipped when there is no Secret Service. */
export function needsSecretService(name: string): string {
  return SECRET_SERVICE_MISSING ? `${name} [skipped: ${SECRET_SERVICE_MISSING}]` : name;
}
