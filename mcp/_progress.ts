/**
 * A tool call's streamed text as `notifications/progress`, one send in flight
 * at a time: text that arrives while a send waits (a client that reads
 * slowly, or never) is coalesced into the next one, and at most
 * `maxBufferedChars` of it is kept (the oldest is dropped, and the next
 * message says so), so a client that never reads holds no more than that.
 */

/** Sends one progress notification; resolves once the transport took it. */
export type SendProgress = (progress: number, message: string) => Promise<void>;

/** The progress of one call. */
export class ProgressStream {
  readonly #send: SendProgress;
  readonly #max: number;
  #pending = "";
  #dropped = 0;
  #count = 0;
  #state: "idle" | "sending" | "closed" = "idle";
  #idle: (() => void) | undefined;

  constructor(send: SendProgress, maxBufferedChars: number) {
    this.#send = send;
    this.#max = maxBufferedChars;
  }

  /** Notifications sent so far. */
  get sent(): number {
    return this.#count;
  }

  /** Queue `text`; sends at once unless a send is in flight. */
  push(text: string): void {
    if (this.#state === "closed" || text === "") return;
    this.#pending += text;
    if (this.#pending.length > this.#max) {
      this.#dropped += this.#pending.length - this.#max;
      this.#pending = this.#pending.slice(this.#pending.length - this.#max);
    }
    if (this.#state === "idle") this.#flush();
  }

  /**
   * The call ended: resolves once what was pushed went out (so the last
   * text is not lost to a send still in flight), or after `maxWaitMs` for a
   * client that does not read; then sends nothing more.
   */
  async finish(maxWaitMs: number): Promise<void> {
    if (this.#state === "sending") {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.#idle = resolve),
        new Promise<void>((resolve) => timer = setTimeout(resolve, maxWaitMs)),
      ]);
      clearTimeout(timer);
    }
    this.close();
  }

  /** Send nothing more. */
  close(): void {
    this.#state = "closed";
    this.#pending = "";
    this.#wake();
  }

  #wake(): void {
    const idle = this.#idle;
    this.#idle = undefined;
    idle?.();
  }

  #flush(): void {
    if (this.#pending === "") {
      if (this.#state === "sending") this.#state = "idle";
      this.#wake();
      return;
    }
    const message = this.#dropped > 0
      ? `[${this.#dropped} characters not delivered]${this.#pending}`
      : this.#pending;
    this.#pending = "";
    this.#dropped = 0;
    this.#state = "sending";
    this.#send(++this.#count, message).then(
      () => {
        if (this.#state !== "closed") this.#flush();
      },
      () => this.close(),
    );
  }
}
