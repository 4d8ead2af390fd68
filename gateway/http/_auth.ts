/** Bearer-token authentication: tokens compared in constant time, then `verify` as a fallback. */
import type { Logger } from "@seam/host";
import { refusedWith } from "../core/_errors.ts";
import { timingSafeEqual, utf8 } from "./_http.ts";
import { refuse } from "./_options.ts";
import type { GatewayAuthOptions } from "../options.ts";

interface Token {
  readonly principal: string;
  readonly bytes: Uint8Array;
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** Who a request comes from, by its bearer token. */
export class BearerAuth {
  readonly #tokens: readonly Token[];
  readonly #verify: GatewayAuthOptions["verify"];
  readonly #logger: Logger;

  /**
   * Check the options once.
   *
   * @throws {TypeError} naming what is wrong with them.
   */
  constructor(auth: GatewayAuthOptions, logger: Logger) {
    if (auth.tokens === undefined && auth.verify === undefined) {
      refuse("auth needs tokens, verify, or both");
    }
    if (auth.verify !== undefined && typeof auth.verify !== "function") {
      refuse("auth.verify must be a function");
    }
    const tokens: Token[] = [];
    const seen = new Set<string>();
    for (const [principal, token] of Object.entries(auth.tokens ?? {})) {
      if (principal === "" || typeof token !== "string" || token === "") {
        refuse(
          `auth.tokens: principal "${principal}" or its token is empty`,
        );
      }
      if (seen.has(token)) {
        refuse(`auth.tokens gives principal "${principal}" a token another principal has`);
      }
      seen.add(token);
      tokens.push({ principal, bytes: utf8(token) });
    }
    this.#tokens = tokens;
    this.#verify = auth.verify;
    this.#logger = logger;
  }

  /**
   * The principal `request` authenticates as.
   *
   * @throws {GatewayError} 401 without a valid bearer token.
   */
  async principalOf(request: Request): Promise<string> {
    const header = request.headers.get("authorization");
    const match = header === null ? null : BEARER.exec(header);
    if (!match) {
      throw refusedWith(401, "Unauthenticated: send Authorization: Bearer <token>");
    }
    const given = utf8(match[1]);
    let principal: string | undefined;
    // Every token is compared, whichever matches: the time says nothing about which.
    for (const entry of this.#tokens) {
      if (timingSafeEqual(given, entry.bytes) && principal === undefined) {
        principal = entry.principal;
      }
    }
    if (principal === undefined && this.#verify) {
      try {
        principal = await this.#verify(match[1], request);
      } catch (error) {
        this.#logger.error("auth.verify threw", error);
        principal = undefined;
      }
      if (principal !== undefined && (typeof principal !== "string" || principal === "")) {
        this.#logger.error("auth.verify answered no principal string");
        principal = undefined;
      }
    }
    if (principal === undefined) {
      throw refusedWith(401, "Unauthenticated: the bearer token is not valid", {
        reason: "invalid_token",
      });
    }
    return principal;
  }
}
