// What the agent's answers to this client's requests mean: `initialize`'s
// (its protocol version checked, what it tells read defensively) and an
// error answer, kept as an `AcpError` with the agent's code, message and
// `data`.
// @ts-types="@agentclientprotocol/sdk"
import * as acp from "./_acp_sdk.bundle.js";
import { isRecord } from "@seam/host";
import {
  AUTH_REQUIRED_CODE,
  type AuthMethod,
  describeAuthMethods,
  parseAuthMethods,
} from "./_auth.ts";
import type { PromptCapabilities } from "./_content.ts";
import {
  AcpError,
  type AcpFailureCode,
  boundedJson,
  cut,
  describeData,
  quoted,
} from "./_failure.ts";

type Json = Record<string, unknown>;

/** The most characters of an error answer's `message` kept (the agent's text). */
const MESSAGE_CHARS = 600;

/** What `initialize` told about the agent. */
export interface AgentInfo {
  readonly promptCapabilities: PromptCapabilities;
  readonly canCloseSessions: boolean;
  readonly name: string | undefined;
  /** The authentication methods it advertised. */
  readonly authMethods: readonly AuthMethod[];
}

/**
 * The error that ends the connection when `initialize`'s answer is no object,
 * or for another protocol version than this client's; else `undefined`.
 */
export function protocolMismatch(response: Json): AcpError | undefined {
  if (!isRecord(response) || response.protocolVersion !== acp.PROTOCOL_VERSION) {
    return new AcpError(
      "PROTOCOL_ERROR",
      isRecord(response)
        ? `the ACP agent answered initialize with protocol version ${
          quoted(response.protocolVersion)
        }; this client speaks version ${acp.PROTOCOL_VERSION}`
        : `the ACP agent answered initialize with ${quoted(response)}, not an object`,
    );
  }
  return undefined;
}

/** What `initialize`'s answer tells about the agent, read defensively. */
export function agentInfoOf(response: Json): AgentInfo {
  const capabilities = isRecord(response.agentCapabilities) ? response.agentCapabilities : {};
  const prompt = isRecord(capabilities.promptCapabilities) ? capabilities.promptCapabilities : {};
  const sessions = isRecord(capabilities.sessionCapabilities)
    ? capabilities.sessionCapabilities
    : {};
  const agentInfo = isRecord(response.agentInfo) ? response.agentInfo : {};
  return {
    promptCapabilities: {
      image: prompt.image === true,
      embeddedContext: prompt.embeddedContext === true,
    },
    canCloseSessions: isRecord(sessions.close),
    name: typeof agentInfo.name === "string" ? agentInfo.name : undefined,
    authMethods: parseAuthMethods(response.authMethods),
  };
}

/**
 * An error answer (`acp.RequestError`) as an {@linkcode AcpError} keeping
 * the agent's code, message and `data` (bounded); -32000 lists the
 * authentication methods offered. Anything else (the connection's own
 * failure) is returned as it is.
 */
export function requestError(
  method: string,
  error: unknown,
  code: AcpFailureCode,
  info: AgentInfo | undefined,
  env: Readonly<Record<string, string>>,
): Error {
  if (!(error instanceof acp.RequestError)) {
    return error instanceof Error ? error : new Error(String(error));
  }
  const data = error.data === undefined ? undefined : boundedJson(error.data);
  const message = cut(String(error.message), MESSAGE_CHARS);
  const auth = error.code === AUTH_REQUIRED_CODE;
  const methods = auth && info ? describeAuthMethods(info.authMethods, env) : "";
  return new AcpError(
    auth ? "AUTH_REQUIRED" : code,
    `the ACP agent answered ${method} with error ${error.code}: ${message}${
      data === undefined ? "" : ` (${describeData(data)})`
    }${methods}`,
    {
      method: method.split(" ")[0],
      rpcError: {
        code: error.code,
        message,
        ...(data === undefined ? {} : { data }),
      },
    },
    // No `cause`: the data holds all it says, and a message quoting a cause
    // (`messageOf`) would quote the agent's whole text again.
  );
}
