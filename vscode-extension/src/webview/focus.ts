// Keyboard focus in a webview page, as in VS Code's own editors. When a tab becomes active VS Code
// focuses the webview's frame but nothing inside it, so keys would go nowhere until a click: the
// graph takes focus then (and when the page, reloaded as the tab is shown again, is ready), unless
// the user had focused something else in it. Escape in a field (the search box) gives focus back to
// the graph, as editors take it back from their find widget. Tab is left to the browser: it moves
// through the page's controls and never gets stuck in the canvas.
export function focusGraphWhenShown(selector: string): void {
  const graph = () => document.querySelector<HTMLElement>(selector);
  const focusGraph = () => {
    const target = graph();
    if (!target || (document.activeElement && document.activeElement !== document.body)) return;
    if (target.tabIndex < 0) target.tabIndex = 0;  // a canvas takes focus only with a tabindex
    target.focus({ preventScroll: true });
  };
  window.addEventListener('focus', focusGraph);
  new MutationObserver(() => {
    if (document.hasFocus()) focusGraph();
  }).observe(document.body, { attributes: true, attributeFilter: ['data-state'] });
  document.addEventListener('keydown', (e) => {
    const field = e.target;
    if (e.key !== 'Escape' || !(field instanceof HTMLInputElement)) return;
    // After the field's own Escape handling (closing its list).
    setTimeout(() => {
      field.blur();
      focusGraph();
    }, 0);
  });
}
