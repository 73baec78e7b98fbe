// What the extension and its webviews say to each other besides the core's protocol
// (web/src/protocol/messages.ts, whose requests the extension host answers): the page's start-up
// data, exports to save, and the actions the page asks the extension to run.
import type { UiOptions } from '../../../web/src/host';
import type { FileReference, FromCore, LayoutView, ToCore } from '../../../web/src/protocol/messages';

/** Given to a page in its HTML (body[data-vq-init]). */
export type PageInit =
  | { page: 'compare'; files: { first: FileReference; second: FileReference; third?: FileReference }; options: UiOptions }
  | { page: 'viewer'; file: FileReference; view: LayoutView };

export interface SaveMessage {
  type: 'save';
  name: string;
  mime: string;
  /** Text, or a base64 string of binary data (a PNG). */
  text?: string;
  base64?: string;
}

export interface ActionMessage {
  type: 'action';
  action: 'compareWith' | 'swap';
}

/** Sent by a page when it starts: answers still due to an earlier load of the page are not sent to this one. */
export interface HelloMessage {
  type: 'hello';
}

export type FromWebview = ToCore | SaveMessage | ActionMessage | HelloMessage;
export type ToWebview = FromCore;

export const isCoreMessage = (m: FromWebview): m is ToCore => m.type === 'request' || m.type === 'cancel';
