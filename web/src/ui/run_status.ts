// The controls of a long run the page makes in the core's background (an activation comparison, a
// sensitivity sweep): Run disabled and Cancel shown while it goes, a progress bar, and a status line
// whose data-state the tests and the user read ("running", "done", "error").
import { CoreRequestError } from '../protocol/connection';
import { describeError } from '../protocol/messages';

export class RunStatus {
  constructor(private readonly run: HTMLButtonElement, private readonly cancel: HTMLButtonElement, private readonly bar: HTMLProgressElement,
    private readonly status: HTMLElement) {
    cancel.hidden = true;
    bar.hidden = true;
  }

  start(): void {
    this.run.disabled = true;
    this.cancel.hidden = false;
    this.bar.hidden = false;
    this.bar.removeAttribute('value');
    this.status.textContent = 'Reading the input files…';
    this.status.dataset.state = 'running';
  }

  /** A progress report of the core: its words, and the fraction when known. */
  progress = (detail: string, fraction?: number): void => {
    this.status.textContent = detail;
    if (fraction === undefined) this.bar.removeAttribute('value');
    else this.bar.value = fraction;
  };

  done(text: string): void {
    this.status.dataset.state = 'done';
    this.status.textContent = text;
  }

  failed(e: unknown, cancelledText?: string): void {
    this.status.textContent = cancelledText !== undefined && (e as { code?: string })?.code === 'cancelled' ? cancelledText
      : `Failed. ${e instanceof CoreRequestError ? describeError(e) : e instanceof Error ? e.message : String(e)}`;
    this.status.dataset.state = 'error';
  }

  /** The run is over (done or not): the controls as before it. */
  end(): void {
    this.cancel.hidden = true;
    this.bar.hidden = true;
  }
}
