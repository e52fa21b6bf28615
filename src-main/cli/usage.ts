// Usage text and the error that makes the CLI print it and exit 2. Each command's help is
// written once: `dataset-sync <command> --help` prints its own, `dataset-sync --help` all of them.

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const COMMAND_HELP = {
  sync: `  sync --base-url URL --collection ID --dest DIR|s3://BUCKET/PREFIX [--s3-endpoint URL] [--consents-dir DIR|s3://…]
       [--concurrency N] [--bwlimit RATE] [--exclude-gold] [--slots KEY,…] [--groups VALUE,…] [--full] [--json]
      one incremental sync of one collection into DIR or a bucket; --concurrency is the large files
      transferred at once (1 to 16, default 4; several small files share one); --bwlimit caps the
      total download rate (default off; rclone's syntax: 4M = 4 MiB/s, 500k = 500 KiB/s, 1000B = bytes/s,
      a plain number = KiB/s, off); --consents-dir defaults to DIR.consents beside DIR (never inside it);
      --full walks every accepted set, not only those changed since the last sync;
      --slots keeps the files of those slot keys only, --groups the sets with a participant in one of those
      quota groups (quota_group.value); both are remembered for DIR until given again (all = every one);
      what falls out of the subset, and sets that left "accepted", move to DIR.withdrawn/<set_id>/;
      a bucket's endpoint is --s3-endpoint, else AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL, else AWS;
      its credentials and region come from the AWS SDK's chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY,
      AWS_PROFILE, ~/.aws/credentials; AWS_REGION, default us-east-1)
`,
  verify: `  verify --dest DIR|s3://BUCKET/PREFIX [--s3-endpoint URL] [--repair [--base-url URL] [--concurrency N]] [--json]
      re-hash every file listed in DIR/manifest.csv (a bucket's objects are read back); report missing, changed and extra files;
      --repair downloads the missing and changed ones again from the service and collection
      recorded in DIR (extra files are listed, never deleted)
`,
  'purge-withdrawn': `  purge-withdrawn --dest DIR|s3://BUCKET/PREFIX [--s3-endpoint URL]
      delete DIR.withdrawn/ (a bucket's PREFIX.withdrawn/): the files, set.json and consent records of
      sets that left the dataset; prints what it deletes first (exit 0 also when there is nothing)
`,
  collections: `  collections --base-url URL [--json]
      list the account's collections with their set counts (GET /collections/:id)
`,
  login: `  login --base-url URL
      read an API key from stdin, check it with GET /me, store it in the OS keychain
`,
  logout: `  logout --base-url URL
      remove the key for URL from the OS keychain
`,
  demo: `  demo [--port P] [--sets N] [--file-size BYTES] [--seed S] [--data-dir DIR]
      serve the reference service with demo data on 127.0.0.1 until interrupted
`,
} as const;

export type CommandName = keyof typeof COMMAND_HELP;

export function isCommand(name: string | undefined): name is CommandName {
  return name !== undefined && Object.hasOwn(COMMAND_HELP, name);
}

const KEY_AND_EXIT_CODES = `The API key comes from the environment variable DATASET_SYNC_API_KEY, else from the OS keychain
entry for the base URL (see login). It is never a command-line argument.

Sizes and rates are in binary units: 1 KiB = 1024 bytes, 1 MiB = 1024 KiB, 1 GiB = 1024 MiB.

Exit codes: 0 all synced and verified; 1 some files or sets failed; 2 usage or configuration
error; 3 authentication failed; 4 the service could not be reached or kept failing.
`;

export const USAGE = `Usage: dataset-sync <command> [options]
       dataset-sync <command> --help
       dataset-sync --version

Commands:
${Object.values(COMMAND_HELP).join('')}
${KEY_AND_EXIT_CODES}`;

/** `dataset-sync <command> --help`: that command's options, the key and the exit codes. */
export function commandUsage(command: CommandName): string {
  return `Usage: dataset-sync ${COMMAND_HELP[command].trimStart()}\n${command === 'demo' ? '' : KEY_AND_EXIT_CODES}`;
}
