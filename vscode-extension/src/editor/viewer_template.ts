// The viewer page's template, made from the web page's (web/src/index.html): its head, error line,
// status bar, progress card and tooltip are the viewer's too, so they live in one place. The viewer
// brings only what differs (src/webview/viewer_parts.html): its toolbar and its workspace, which
// replace the web page's <header class="toolbar"> and <main> (its zoom buttons are the web page's,
// where the parts say `<!-- zoom: ... -->`), and the body is marked as the viewer's.
// A template that lacks one of these parts is refused, so a change to index.html that breaks the
// viewer fails the tests (test/pages.test.ts) instead of showing a broken tab.

const TOOLBAR = /<header class="toolbar"[^>]*>[\s\S]*?<\/header>/;
const MAIN = /<main\b[^>]*>[\s\S]*?<\/main>/;
const ZOOM = /<div class="group">\s*<button id="zoom-out"[\s\S]*?<\/div>/;
const ZOOM_SLOT = /<!-- zoom:[^>]*-->/;

export function viewerTemplate(webPage: string, viewerParts: string): string {
  const part = (pattern: RegExp, html: string, what: string) => {
    const found = pattern.exec(html);
    if (!found) throw new Error(`${what} has no ${pattern}`);
    return found[0];
  };
  let html = webPage;
  // Functions as replacements: nothing in the parts is read as a replacement pattern ($&).
  const replace = (pattern: RegExp, by: string) => {
    part(pattern, html, 'the web page');
    html = html.replace(pattern, () => by);
  };
  const zoom = part(ZOOM, webPage, 'the web page');
  const toolbar = part(TOOLBAR, viewerParts, 'the viewer\'s parts');
  part(ZOOM_SLOT, toolbar, 'the viewer\'s toolbar');
  replace(TOOLBAR, toolbar.replace(ZOOM_SLOT, () => zoom));
  replace(MAIN, part(MAIN, viewerParts, 'the viewer\'s parts'));
  replace(/<body>/, '<body class="viewer">');
  replace(/<script type="module" src="main\.js"><\/script>/, '<script type="module" src="viewer.js"></script>');
  return html;
}
