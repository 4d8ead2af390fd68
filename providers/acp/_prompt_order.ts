// `session/cancel` never overtakes its session's prompt: the SDK may still
// queue a `session/prompt` when writes are busy, and an agent that meets the
// cancel first ignores it, then runs the whole turn. A cancel waits until the
// session's prompt reached stdin (or never will).
import { deferred } from "./_async.ts";

/** Per session, the prompt asked of the SDK and not yet written. */
export class PromptOrder {
  #unsent = new Map<string, ReturnType<typeof deferred<void>>>();

  /** A prompt of `sessionId` was asked of the SDK; pass the token to {@linkcode written}. */
  asked(sessionId: string): object {
    const unsent = deferred();
    this.#unsent.set(sessionId, unsent);
    return unsent;
  }

  /**
   * The session's prompt reached stdin, or never will (`token`: that prompt
   * only, else the session's latest): a cancel may follow.
   */
  written(sessionId: string, token?: object): void {
    const unsent = this.#unsent.get(sessionId);
    if (!unsent || (token !== undefined && unsent !== token)) return;
    this.#unsent.delete(sessionId);
    unsent.resolve();
  }

  /** Run `write` now, or once the session's unsent prompt is written. */
  after(sessionId: string, write: () => void): void {
    const unsent = this.#unsent.get(sessionId);
    if (unsent) unsent.promise.then(write);
    else write();
  }
}
