// The Data Champ search filters by country name (the API's `country` is "country name"); people
// also type ISO 3166 codes ("DE"). A two-letter code the browser knows becomes its English name.

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/** "DE" or "de" -> "Germany"; anything else as typed (trimmed). */
export function countryName(input: string): string {
  const typed = input.trim();
  if (!/^[A-Za-z]{2}$/.test(typed)) return typed;
  try {
    const name = regionNames.of(typed.toUpperCase());
    // ZZ is CLDR's "Unknown Region": not a country to search for.
    return name && name !== 'Unknown Region' ? name : typed;
  } catch {
    return typed;
  }
}
