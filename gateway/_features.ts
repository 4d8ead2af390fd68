/**
 * The one seam between the gateway's always-there part (`core/`, `http/`)
 * and its optional features (`cluster/`, `push/`, `inspector/`, `a2a03/`):
 * {@linkcode GatewayFeatures}, and the feature types the core names. Only
 * types cross it, so an entry that gives no feature (`@seam/gateway/lite`)
 * bundles none of their code. `compat/gateway_folders_check.ts`
 * (`deno task check:folders`) proves that `core/` and `http/` reach the
 * feature folders through this file only, and that it exports types only.
 *
 * @module
 */
import type { Logger } from "@seam/host";
import type { PushBindings, V03Bindings } from "./http/_binding.ts";
import type { InspectorLimits, PushOptionsResolved } from "./http/_options.ts";
import type { GatewayOptions } from "./options.ts";
import type { Engine, EngineOptions } from "./core/_engine.ts";
import type { TaskHome } from "./core/_home.ts";
import type { PreparedPush, PushService } from "./push/_push.ts";
import type { AllowWebhook } from "./push/_push_policy.ts";
import type { InspectorRecord } from "./inspector/_inspector_record.ts";
import type { InspectorRoutes } from "./inspector/_inspector_routes.ts";
import type { addV03ToCard, V03CardShape } from "./a2a03/_v03_card.ts";

export type {
  addV03ToCard,
  AllowWebhook,
  InspectorRecord,
  InspectorRoutes,
  PreparedPush,
  PushService,
  V03CardShape,
};

/** The optional parts of a gateway, each behind its option. */
export interface GatewayFeatures {
  /** A2A 0.3 (`a2a03`): its bindings, and what adds it to the cards. */
  readonly v03?: { readonly bindings: V03Bindings; readonly card: typeof addV03ToCard };
  /** Push notifications (`push`): its option resolved, and the service for it. */
  readonly push?: {
    readonly resolve: (push: GatewayOptions["push"]) => PushOptionsResolved | undefined;
    readonly service: (options: PushOptionsResolved, logger: Logger) => PushService;
    /** The push config methods of the 1.0 bindings. */
    readonly bindings: PushBindings;
  };
  /** One instance of many, on a shared task store (`TaskStorage` with `shared: true`). */
  readonly cluster?: (engine: Engine, options: EngineOptions) => TaskHome | undefined;
  /** The run inspector (`inspector`): its option resolved, its memory and its routes. */
  readonly inspector?: {
    readonly resolve: (inspector: GatewayOptions["inspector"]) => InspectorLimits | undefined;
    readonly Record: typeof InspectorRecord;
    readonly Routes: typeof InspectorRoutes;
  };
}
