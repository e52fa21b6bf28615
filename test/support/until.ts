// Polls a condition the code under test will make true (a sync ending, an event arriving),
// failing with what was awaited when it does not happen in time.
export async function until(what: string, predicate: () => boolean, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
