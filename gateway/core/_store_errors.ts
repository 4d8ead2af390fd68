/** What a request answers when the task store fails. */
import type { Logger } from "@seam/host";
import { type GatewayError, internalError } from "./_errors.ts";
import { isTaskStorageError } from "../task_storage.ts";

/**
 * The 503 a request gets while the storage is out of reach; `why` is the
 * gateway's own words, never the store's message (a driver's names hosts,
 * ports and users, for the log, not for any client).
 */
export function unavailable(why?: string): GatewayError {
  return internalError(
    `Service unavailable: the task store cannot be reached right now${
      why === undefined ? "" : ` (${why.slice(0, 300)})`
    }; try again shortly`,
    { httpStatus: 503, metadata: { reason: "STORE_UNAVAILABLE" } },
  );
}

/** A store failure as the error a request answers: 503 when out of reach, else internal. */
export function storeFailure(error: unknown, logger: Logger, what: string): GatewayError {
  if (isTaskStorageError(error, "UNAVAILABLE")) {
    logger.warn(`${what}: the task store is unreachable`, error);
    return unavailable();
  }
  logger.error(`${what} failed`, error);
  return internalError("Internal error: the task store failed");
}
