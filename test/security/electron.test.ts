// Electron hardening: the pure security functions (window options, CSP, navigation, window.open,
// IPC sender check) and a static check that src-main/index.ts actually wires them in; then
// @doyensec/electronegativity over src-main + src-renderer, failing on any finding that
// test/security/ELECTRONEGATIVITY.md does not justify.
import { execFile } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, createWindowOptions, isAllowedNavigation, isSafeExternalUrl, isTrustedSenderUrl } from '../../src-main/app/security';
import { listFiles, tempDir } from '../engine/helpers';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const ELECTRONEGATIVITY = path.join(REPO, 'node_modules', '.bin', 'electronegativity');

describe('pure security functions', () => {
  const location = { indexHtmlPath: '/app/out/renderer/index.html' };

  it('webPreferences isolate and sandbox the renderer', () => {
    const w = createWindowOptions('/app/out/preload/index.js').webPreferences;
    expect(w.contextIsolation).toBe(true);
    expect(w.sandbox).toBe(true);
    expect(w.nodeIntegration).toBe(false);
    expect(w.webSecurity).toBe(true);
    expect(w.webviewTag).toBe(false);
    expect(w.allowRunningInsecureContent).toBe(false);
    expect(Object.keys(w)).not.toContain('enableRemoteModule');
  });

  it('the CSP allows only our own scripts, never eval or inline script', () => {
    const directives = new Map(CONTENT_SECURITY_POLICY.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|wasm-unsafe-eval/);
    expect(directives.get('object-src')).toEqual(["'none'"]);
  });

  it('navigation, window.open targets and IPC senders are refused unless they are our own renderer', () => {
    const own = pathToFileURL(location.indexHtmlPath).toString();
    expect(isAllowedNavigation(own, location)).toBe(true);
    for (const bad of ['https://evil.example/', 'file:///etc/passwd', 'file:///app/out/renderer/other.html', 'javascript:alert(1)', 'data:text/html,x', '']) {
      expect(isAllowedNavigation(bad, location), bad).toBe(false);
      expect(isTrustedSenderUrl(bad, location), bad).toBe(false);
    }
    expect(isTrustedSenderUrl(undefined, location)).toBe(false);
    expect(isTrustedSenderUrl(own + '#/settings', location)).toBe(true);
    // window.open is always denied in-app; only validated https links go to the system browser.
    for (const bad of ['http://example.com', 'file:///etc/passwd', 'javascript:alert(1)', 'https://user:pw@example.com', 'smb://host/share']) expect(isSafeExternalUrl(bad), bad).toBe(false);
    expect(isSafeExternalUrl('https://example.com/help')).toBe(true);
  });
});

describe('src-main/index.ts wires the security functions in', () => {
  let source = '';
  beforeAll(async () => {
    source = await fs.readFile(path.join(REPO, 'src-main', 'index.ts'), 'utf8');
  });

  it('creates every window from createWindowOptions and sets the CSP header', () => {
    const windows = source.match(/new BrowserWindow\(([^)]*)/g) ?? [];
    expect(windows.length).toBeGreaterThan(0);
    for (const w of windows) expect(w).toMatch(/new BrowserWindow\(createWindowOptions\(/);
    expect(source).toMatch(/onHeadersReceived[\s\S]{0,300}Content-Security-Policy[\s\S]{0,40}csp/);
    expect(source).toMatch(/const csp = [^;]*CONTENT_SECURITY_POLICY/);
  });

  it('denies navigation, redirects, webviews, window.open and permissions; checks every IPC sender', () => {
    expect(source).toMatch(/'will-navigate'[\s\S]{0,120}isAllowedNavigation\([\s\S]{0,60}preventDefault\(\)/);
    expect(source).toMatch(/'will-redirect'[\s\S]{0,120}isAllowedNavigation\([\s\S]{0,60}preventDefault\(\)/);
    expect(source).toMatch(/'will-attach-webview'[\s\S]{0,60}preventDefault\(\)/);
    expect(source).toMatch(/setWindowOpenHandler\([\s\S]{0,300}action: 'deny'/);
    expect(source).not.toMatch(/action: 'allow'/);
    // Every permission denied but clipboard writes (a failed file's Copy button).
    expect(source).toMatch(/setPermissionRequestHandler\(\([^)]*\)\s*=>\s*callback\(permission === 'clipboard-sanitized-write'\)\)/);
    const handles = source.match(/ipcMain\.(handle|on)\(/g) ?? [];
    const checked = source.match(/ipcMain\.(handle|on)\([\s\S]{0,200}isTrustedSenderUrl\(event\.senderFrame/g) ?? [];
    expect(handles.length).toBeGreaterThan(0);
    expect(checked.length).toBe(handles.length);
  });

  it('nothing in src-main weakens webPreferences', async () => {
    for (const f of await listFiles(path.join(REPO, 'src-main'))) {
      const text = await fs.readFile(path.join(REPO, 'src-main', f), 'utf8');
      expect(text, f).not.toMatch(/nodeIntegration\s*:\s*true|contextIsolation\s*:\s*false|sandbox\s*:\s*false|webSecurity\s*:\s*false|webviewTag\s*:\s*true|allowRunningInsecureContent\s*:\s*true|enableRemoteModule|experimentalFeatures\s*:\s*true/);
    }
  });
});

/**
 * Findings that are justified in test/security/ELECTRONEGATIVITY.md, as "<check> <file>".
 * Anything else fails the test: fix it or justify it there and here.
 */
const JUSTIFIED = new Set([
  'CONTEXT_ISOLATION_JS_CHECK src-main/index.ts',
  'SANDBOX_JS_CHECK src-main/index.ts',
  'NODE_INTEGRATION_JS_CHECK src-main/index.ts',
  'AUXCLICK_JS_CHECK src-main/index.ts',
  'OPEN_EXTERNAL_JS_CHECK src-main/index.ts',
  'OPEN_EXTERNAL_JS_CHECK src-main/ipc/handlers.ts',
  'CSP_GLOBAL_CHECK src-main/index.ts',
  'CSP_GLOBAL_CHECK src-renderer/index.html',
]);

describe('electronegativity', () => {
  let work = '';
  beforeAll(async () => {
    work = await tempDir('dsync-eneg-');
  });
  afterAll(async () => {
    await fs.rm(work, { recursive: true, force: true });
  });

  it('finds nothing unjustified in src-main + src-renderer', { timeout: 120_000 }, async (ctx) => {
    if (!existsSync(ELECTRONEGATIVITY)) ctx.skip('@doyensec/electronegativity is not installed (npm install)');
    // Scanned together so its global checks (navigation limits, permission handler) see main and renderer at once.
    const app = path.join(work, 'app');
    await fs.mkdir(app);
    await fs.cp(path.join(REPO, 'src-main'), path.join(app, 'src-main'), { recursive: true });
    await fs.cp(path.join(REPO, 'src-renderer'), path.join(app, 'src-renderer'), { recursive: true });
    // SARIF, not CSV: the tool's CSV writer sometimes overwrites its first row (seen with 1.10.3).
    const report = path.join(work, 'findings.sarif');
    // -e: Electron is not installed here, so tell it the version (package.json) instead of letting it guess v0.1.0.
    await new Promise<void>((resolve, reject) =>
      execFile(ELECTRONEGATIVITY, ['-i', app, '-o', report, '-r', '-e', '38.8.0'], { timeout: 100_000 }, (err, _out, stderr) =>
        err ? reject(new Error(`electronegativity failed: ${err.message}\n${stderr}`)) : resolve(),
      ),
    );
    const sarif = JSON.parse(await fs.readFile(report, 'utf8')) as {
      runs: Array<{ results: Array<{ ruleId: string; level: string; locations?: Array<{ physicalLocation?: { artifactLocation?: { uri?: string }; region?: { startLine?: number } } }> }> }>;
    };
    const findings = sarif.runs.flatMap((run) =>
      run.results.map((r) => {
        const loc = r.locations?.[0]?.physicalLocation;
        return { check: r.ruleId, severity: r.level, file: (loc?.artifactLocation?.uri ?? 'N/A').replace(/\\/g, '/'), location: String(loc?.region?.startLine ?? 0) };
      }),
    );
    // The report was read (there are justified findings), so an empty list below means something.
    expect(findings.length).toBeGreaterThan(0);
    for (const f of findings) expect(f.check).toMatch(/^[A-Z_]+_CHECK$/);
    const unjustified = findings.filter((f) => !JUSTIFIED.has(`${f.check} ${f.file}`)).map((f) => `${f.check} ${f.severity} ${f.file}:${f.location}`);
    expect(unjustified).toEqual([]);
    // The global checks that need main + renderer together found our handlers.
    expect(findings.map((f) => f.check)).not.toContain('LIMIT_NAVIGATION_GLOBAL_CHECK');
    expect(findings.map((f) => f.check)).not.toContain('PERMISSION_REQUEST_HANDLER_GLOBAL_CHECK');
  });
});

