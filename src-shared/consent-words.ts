// How many sets of the dataset have a participant without a signed consent (the summary's
// consentMissingSets), in the same words wherever a sync's result is shown: the CLI's closing
// line, the app's result text and the history row. Their files are complete; the words keep a
// researcher from reading "every file verified" as "everything is in order".

/** e.g. "4 sets have a participant without a signed consent"; null when there is none (or the count is unknown). */
export function consentMissingWords(n: number | undefined): string | null {
  if (!n) return null;
  return n === 1 ? '1 set has a participant without a signed consent' : `${n} sets have a participant without a signed consent`;
}
