import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  checkExternalUrl,
  CONTENT_SECURITY_POLICY,
  createWindowOptions,
  developmentContentSecurityPolicy,
  isAllowedNavigation,
  isSafeExternalUrl,
  isTrustedSenderUrl,
} from '../../src-main/app/security';

describe('window options', () => {
  it('isolate and sandbox the renderer with no Node access', () => {
    const options = createWindowOptions('/app/out/preload/preload.js');
    expect(options.webPreferences).toMatchObject({
      preload: '/app/out/preload/preload.js',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
  });
});

describe('content security policy', () => {
  const directives = new Map(CONTENT_SECURITY_POLICY.split(';').map((d) => {
    const [name, ...values] = d.trim().split(/\s+/);
    return [name, values] as const;
  }));

  it('denies by default and allows only our own scripts, without eval or inline script', () => {
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
  });

  it('the development variant only widens towards the dev server', () => {
    const dev = developmentContentSecurityPolicy('http://localhost:5173/');
    expect(dev).toContain("script-src 'self' 'unsafe-inline' http://localhost:5173");
    expect(dev).toContain('ws://localhost:5173');
    expect(dev).not.toContain('unsafe-eval');
  });
});

describe('IPC sender check', () => {
  const indexHtmlPath = join('/opt/dataset-sync/out/renderer', 'index.html');
  const built = { indexHtmlPath };
  const dev = { indexHtmlPath, devServerUrl: 'http://localhost:5173/' };
  const ownFile = pathToFileURL(indexHtmlPath).toString();

  it('accepts our own index.html (with a hash route) and the dev server origin', () => {
    expect(isTrustedSenderUrl(ownFile, built)).toBe(true);
    expect(isTrustedSenderUrl(`${ownFile}#/collections/3`, built)).toBe(true);
    expect(isTrustedSenderUrl('http://localhost:5173/collections', dev)).toBe(true);
  });

  it('refuses other files, other origins, missing URLs and the dev server when not in dev', () => {
    expect(isTrustedSenderUrl(pathToFileURL('/tmp/evil/index.html').toString(), built)).toBe(false);
    expect(isTrustedSenderUrl(pathToFileURL('/opt/dataset-sync/out/renderer/other.html').toString(), built)).toBe(false);
    expect(isTrustedSenderUrl('https://example.com/', dev)).toBe(false);
    expect(isTrustedSenderUrl('http://localhost:5174/', dev)).toBe(false);
    expect(isTrustedSenderUrl('http://localhost:5173/', built)).toBe(false);
    expect(isTrustedSenderUrl('', built)).toBe(false);
    expect(isTrustedSenderUrl(undefined, built)).toBe(false);
    expect(isTrustedSenderUrl('not a url', built)).toBe(false);
  });

  it('navigation is allowed only back to our own renderer', () => {
    expect(isAllowedNavigation(ownFile, built)).toBe(true);
    expect(isAllowedNavigation('https://evil.example/', built)).toBe(false);
  });
});

describe('openExternal URL check', () => {
  it('allows https links and normalises them', () => {
    expect(checkExternalUrl('https://example.com/help?x=1')).toBe('https://example.com/help?x=1');
    expect(isSafeExternalUrl('https://docs.example.org/')).toBe(true);
  });

  it.each([
    ['http://example.com/', /Only https/],
    ['file:///etc/passwd', /Only https/],
    ['javascript:alert(1)', /Only https/],
    ['smb://server/share', /Only https/],
    ['https://user:pass@example.com/', /user name or password/],
    ['not a url', /not a valid URL/],
  ])('refuses %s', (url, message) => {
    expect(() => checkExternalUrl(url)).toThrow(message);
    expect(isSafeExternalUrl(url)).toBe(false);
  });
});
