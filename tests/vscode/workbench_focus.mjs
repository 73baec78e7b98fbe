// Sending keys to VS Code only once its focus has come to rest, and only where nothing takes it away.
//
// VS Code moves the focus in steps, after the action that caused it:
//   - a click on an editor tab makes EditorGroupView focus the editor from a timer
//     (`setTimeout(() => this.focus())`);
//   - a webview editor that is focused (by that timer, or when it opens) focuses its frame at once and
//     hands the focus to the page inside 50 ms later (WebviewElement's focus delayer, then the frame's
//     'focus' message);
//   - a quick input (the Command Palette, a quick pick, code-server's save dialog) that closes gives
//     the focus back to the element that had it before it opened; for an editor, that starts the
//     hand-over above again.
// A key pressed before the focus lands goes to the wrong place, and a palette or quick pick that opens
// in the meantime loses the focus and closes (its input inert during the close animation, then
// hidden). So the helpers here wait for where the focus lands after each such action, open the
// palette from the Explorer's list (which nothing hands the focus away from, and which gets it back
// when the palette closes), and type only into a quick input that is shown, not closing, and focused.
//
// VS Code can also lose a hand-over: under load (about 1 in 12 clicks on the active tab right after
// a save dialog opened from the page had closed), the frame got the focus and kept it, and the page
// never did, until a click into it. The likely cause: the frame reports its blur by polling its own
// focus every 250 ms, and a 'did-blur' from before the editor's focus() that arrives after it, but
// before the 50 ms delayer fires, makes the delayer find the webview unfocused, so the page is never
// told. A hand-over pending for HAND_OVER_LOST_MS is taken as lost here and completed the user's way.

/** The frame a webview lives in (VS Code's webview host page); the extension's page is its child. */
const isWebviewHost = (frame) => /\/webview\/browser\/pre\/index\.html/.test(frame.url());

const QUICK_INPUT = '.quick-input-widget .quick-input-box input';

/** How long a hand-over may be pending before it is taken as lost (see above): many times its usual 50 ms. */
const HAND_OVER_LOST_MS = 3000;

/**
 * The webview host frame in the middle of a hand-over, if any: it has the focus but the page inside
 * does not have it yet.
 */
async function handOverPending(page) {
  for (const frame of page.frames()) {
    if (!isWebviewHost(frame)) continue;
    const pending = await frame.evaluate(() => document.hasFocus() && document.activeElement?.id !== 'active-frame').catch(() => false);
    if (pending) return frame;
  }
  return null;
}

/**
 * A check for `until` that is called on each poll: it completes a hand-over that has been pending for
 * HAND_OVER_LOST_MS by clicking into the page, at its top left corner, on the toolbar's background,
 * where nothing reacts to a click.
 */
function lostHandOverMender(page) {
  let host = null, since = 0;
  return async () => {
    const pending = await handOverPending(page);
    if (pending !== host) [host, since] = [pending, Date.now()];
    if (!host || Date.now() - since < HAND_OVER_LOST_MS) return;
    for (const child of host.childFrames()) {
      const active = await child.frameElement().then((e) => e.getAttribute('id')).catch(() => null);
      if (active === 'active-frame') await child.locator('body').click({ position: { x: 2, y: 2 } }).catch(() => undefined);
    }
    host = null;
  };
}

/** Polls `check` (async) every 20 ms until it holds, or fails saying `what` did not happen, and where the focus is. */
async function until(page, check, what, timeout = 30000) {
  const end = Date.now() + timeout;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting until ${what}; the focus: ${await whereFocusIs(page)}`);
    await page.waitForTimeout(20);
  }
}

/** Each frame's focus, for a failure's message: whether its document has it, and its active element. */
async function whereFocusIs(page) {
  const frames = await Promise.all(page.frames().map((frame) => frame.evaluate(() => {
    const e = document.activeElement;
    return `${document.hasFocus() ? 'focused' : 'not focused'}, active ${e ? `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className && typeof e.className === 'string' ? `.${e.className.trim().split(/\s+/).slice(0, 3).join('.')}` : ''}` : 'none'}`;
  }).then((said) => `[${frame === page.mainFrame() ? 'workbench' : new URL(frame.url()).pathname.split('/').pop()}] ${said}`).catch(() => null)));
  return frames.filter(Boolean).join('; ');
}

/** Waits until no webview is being handed the focus (see above). */
export async function focusSettled(page) {
  const mendLost = lostHandOverMender(page);
  await until(page, async () => {
    await mendLost();
    return !(await handOverPending(page));
  }, 'no webview is being handed the focus');
}

/**
 * The extension's page (a webview frame satisfying `predicate`) once it has the keyboard focus: the
 * last step of a webview editor's focus hand-over.
 */
export async function focusedWebview(page, predicate, timeout = 60000) {
  const mendLost = lostHandOverMender(page);
  let found = null;
  await until(page, async () => {
    await mendLost();
    for (const frame of page.frames()) {
      if (!frame.parentFrame() || !isWebviewHost(frame.parentFrame())) continue;
      const focused = await frame.evaluate(() => document.hasFocus()).catch(() => false);
      if (focused && await frame.evaluate(predicate).catch(() => false)) {
        found = frame;
        return true;
      }
    }
    return false;
  }, `a focused webview page satisfies ${predicate}`, timeout);
  return found;
}

/** Shows an editor tab by clicking it, and returns its page once the focus has been handed to it. */
export async function showTab(page, tab, predicate) {
  await tab.click();
  await until(page, () => tab.evaluate((t) => t.classList.contains('active')), 'the tab is active');
  return focusedWebview(page, predicate);
}

/**
 * Puts the keyboard focus on the Explorer's list, once no hand-over is under way: the focus stays
 * there (nothing hands it on from a list), and a quick input opened from it gives it back there.
 * The list's focused row and selection are left as they are.
 */
export async function focusExplorer(page) {
  await focusSettled(page);
  await page.locator('.explorer-folders-view .monaco-list').first().focus();
  await page.waitForFunction(() => !!document.activeElement?.closest('.explorer-folders-view'));
}

/** Clicks an Explorer row and presses Enter once the row has the keyboard focus (it opens the file). */
export async function openFromExplorer(page, row) {
  await focusSettled(page);
  await row.click();
  const handle = await row.elementHandle();
  await page.waitForFunction((r) => r.classList.contains('focused') && r.closest('.monaco-list')?.contains(document.activeElement), handle);
  await page.keyboard.press('Enter');
}

/**
 * The quick input's text field once the quick input is shown (not closing), has the focus, and shows
 * `title` (a RegExp source; null: any) with a value matching `value` (likewise).
 */
export async function quickInputFocused(page, { title = null, value = null } = {}, timeout = 30000) {
  await page.waitForFunction(({ selector, title, value }) => {
    const input = document.querySelector(selector);
    const widget = input?.closest('.quick-input-widget');
    if (!widget || widget.style.display === 'none' || widget.closest('[inert]') || document.activeElement !== input) return false;
    const shown = widget.querySelector('.quick-input-title')?.textContent ?? '';
    return (title === null || new RegExp(title).test(shown)) && (value === null || new RegExp(value).test(input.value));
  }, { selector: QUICK_INPUT, title, value }, { timeout });
  return page.locator(QUICK_INPUT);
}

/**
 * Filters the focused quick input with `filter`, waits until its highlighted row holds `rowText`
 * (while the quick input still has the focus), and accepts that row.
 */
async function choose(page, filter, rowText) {
  await page.locator(QUICK_INPUT).fill(filter);
  await acceptFocusedRow(page, rowText);
}

/** Presses Enter on the quick input's highlighted row once it holds `rowText` and the field has the focus. */
export async function acceptFocusedRow(page, rowText) {
  await page.waitForFunction(({ selector, rowText }) => {
    const input = document.querySelector(selector);
    const row = input?.closest('.quick-input-widget')?.querySelector('.quick-input-list .monaco-list-row.focused');
    return document.activeElement === input && !input.closest('[inert]') && !!row?.textContent.includes(rowText);
  }, { selector: QUICK_INPUT, rowText }, { timeout: 15000 });
  await page.keyboard.press('Enter');
}

/** Runs a command from the Command Palette (F1), opened from the Explorer's list. */
export async function runCommand(page, title) {
  await focusExplorer(page);
  await page.keyboard.press('F1');
  await quickInputFocused(page, { value: '^>' });
  await choose(page, `>${title}`, title);
}

/** Picks the row holding `text` in the quick pick titled `title` (a RegExp source) once it has the focus. */
export async function pickInQuickPick(page, title, text) {
  await quickInputFocused(page, { title });
  await choose(page, text, text);
}
