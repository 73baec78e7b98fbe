// A webview page's HTML: the page's template (the web UI's index.html, or the viewer's) with a
// strict Content-Security-Policy for the webview (scripts only with this load's nonce, styles and
// fonts only from the extension's own files, no network, no inline code, no wasm: the core runs in
// the extension host), the bundle and styles as webview URIs, and the start-up data on the body.
import { randomBytes } from 'node:crypto';
import type { PageInit } from '../webview/host_messages';

export interface PageAssets {
  /** The page's template HTML. */
  template: string;
  /** Webview URIs of the page's script and its style sheets, in order. */
  script: string;
  styles: string[];
  /** webview.cspSource: the origin of the extension's files as the webview loads them. */
  cspSource: string;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data: blob:`,
    "connect-src 'none'",
    "worker-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

const attr = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The page's HTML; throws if the template lacks a part it must replace (a changed template is caught by the tests). */
export function pageHtml(assets: PageAssets, init: PageInit, nonce = randomBytes(18).toString('base64')): string {
  let html = assets.template;
  // Replacements are functions, so that nothing in them is read as a replacement pattern ($&, $1).
  const replace = (pattern: RegExp, by: (...groups: string[]) => string) => {
    if (!pattern.test(html)) throw new Error(`the page template has no ${pattern}`);
    html = html.replace(pattern, (_match, ...groups: string[]) => by(...groups));
  };
  replace(/<meta http-equiv="Content-Security-Policy" content="[^"]*">/, () => `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(assets.cspSource, nonce)}">`);
  replace(/<link rel="stylesheet" href="styles\.css">/, () => assets.styles.map((s) => `<link rel="stylesheet" href="${attr(s)}">`).join('\n  '));
  // The web page's own start-up (the wasm preloaded, boot.js starting its worker): the webview's
  // core runs in the extension host, so they go.
  replace(/\n\s*<!-- The core's wasm is fetched[^]*?-->/, () => '');
  replace(/\n\s*<link rel="preload" href="visualquant_core\.wasm"[^>]*>/, () => '');
  replace(/\n\s*<script type="module" src="boot\.js"><\/script>/, () => '');
  replace(/<script type="module" src="[a-z]+\.js"><\/script>/, () => `<script type="module" nonce="${nonce}" src="${attr(assets.script)}"></script>`);
  replace(/<body([^>]*)>/, (attributes) => `<body${attributes} data-vq-init="${attr(JSON.stringify(init))}">`);
  return html;
}
