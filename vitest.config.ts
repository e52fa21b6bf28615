import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Tests start real servers, child processes and a browser: give them room, and keep
    // the two cores from thrashing by running at most two files at once.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll waits for what a browser or the engine shows next: its default of 1 s is too short
    // while the other file in flight loads the disk (a verify's result in the dataset card failed
    // so in CI). Explicit timeouts still win; a poll that passes returns as soon as it does.
    expect: { poll: { timeout: 30_000 } },
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
  },
});
