// How many sessions a connection holds: a slot is taken as `session/new`
// begins (so requests under way at once cannot overshoot) and freed when the
// request fails or the session's agent is disposed.
// @ts-types="@agentclientprotocol/sdk"
import * as acp from "../_acp_sdk.bundle.js";

/** The sessions one connection may hold, at most `max`. */
export class SessionSlots {
  readonly max: number;
  #held = 0;

  constructor(max: number) {
    this.max = max;
  }

  /** The slots held now. */
  get held(): number {
    return this.#held;
  }

  /**
   * Take a slot; the function returned frees it (once, however often it is
   * called).
   *
   * @throws {acp.RequestError} -32603 (`data: {reason: "maxSessions", maxSessions}`) when all are held.
   */
  take(): () => void {
    if (this.#held >= this.max) {
      throw new acp.RequestError(
        -32603,
        `Cannot open a session: this connection holds ${this.max} sessions already, the most it may (maxSessions); close one with session/close first`,
        { reason: "maxSessions", maxSessions: this.max },
      );
    }
    this.#held++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#held--;
    };
  }
}
