// One editor tab's core: a worker thread with the wasm core, the protocol's host side in front of
// it, and the tab's webview on the other side. Saving exports and the page's actions are handed to
// the extension. Disposing the session (the tab closed) ends the thread and frees the models.
import * as vscode from 'vscode';
import type { FromCore, Method, Result } from '../../../web/src/protocol/messages';
import { isCoreMessage, type FromWebview, type SaveMessage } from '../webview/host_messages';
import { HostDispatcher } from './dispatch';
import { WorkspaceFiles } from './files';
import { NodeCoreConnection } from './node_connection';

export interface SessionHooks {
  save(message: SaveMessage): void;
  action(name: 'compareWith' | 'swap'): void;
  /** Every answer the core gave the page (the tab's title and status follow them). */
  answered?(method: Method, result: Result<Method>): void;
  /** The user cancelled a load from its progress notification (`title` says which load). */
  cancelled?(title: string): void;
}

export class CoreSession implements vscode.Disposable {
  private readonly core: NodeCoreConnection;
  readonly dispatcher: HostDispatcher;
  private readonly files: WorkspaceFiles;
  private readonly listeners: vscode.Disposable[] = [];

  constructor(workerScript: string, private webview: vscode.Webview, files: vscode.Uri[], private readonly hooks: SessionHooks) {
    this.core = new NodeCoreConnection(workerScript);
    this.files = new WorkspaceFiles(files);
    this.dispatcher = new HostDispatcher({
      core: this.core,
      files: this.files,
      post: (message: FromCore) => {
        if (message.type === 'result') hooks.answered?.(message.method, message.result);
        void this.webview.postMessage(message);
      },
      showProgress: (title, cancel) => progressNotification(title, () => {
        cancel();
        hooks.cancelled?.(title);
      }),
    });
    this.listen();
  }

  /** Lets the page read `files` as well (a swap, another pair in the same tab). */
  allow(files: vscode.Uri[]): void {
    this.files.allow(files);
  }

  private listen() {
    this.listeners.push(this.webview.onDidReceiveMessage((message: FromWebview) => {
      if (isCoreMessage(message)) this.dispatcher.receive(message);
      else if (message.type === 'hello') this.dispatcher.newPage();
      else if (message.type === 'save') this.hooks.save(message);
      else if (message.type === 'action') this.hooks.action(message.action);
    }));
  }

  dispose(): void {
    for (const l of this.listeners.splice(0)) l.dispose();
    this.dispatcher.dispose();
    this.core.dispose();
  }
}

/** How long a load runs before its notification shows: small models open without one. */
const NOTIFY_AFTER_MS = 500;

/** A progress notification with Cancel for a load that takes a while; it closes when `done` is called. */
function progressNotification(title: string, cancel: () => void) {
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => { finish = resolve; });
  let latest: { detail: string; fraction?: number } = { detail: '' };
  let report: (() => void) | null = null;
  const timer = setTimeout(() => {
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (progress, token) => {
      token.onCancellationRequested(cancel);
      let shown = 0;
      report = () => {
        const now = latest.fraction === undefined ? shown : Math.round(latest.fraction * 100);
        progress.report({ message: latest.detail, increment: Math.max(0, now - shown) });
        shown = Math.max(shown, now);
      };
      report();
      return finished;
    });
  }, NOTIFY_AFTER_MS);
  return {
    report: (detail: string, fraction?: number) => {
      latest = { detail, fraction };
      report?.();
    },
    done: () => {
      clearTimeout(timer);
      finish();
    },
  };
}
