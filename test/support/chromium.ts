// The helper every browser test launches Chromium with; where the browser comes from
// (CHROMIUM_PATH, system, npm package) is scripts/find-chromium.ts.
export { findChromium, launchChromium, type ChromiumSource, type FindChromiumOptions, type FoundChromium } from '../../scripts/find-chromium';
