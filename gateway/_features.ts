/**
 * The one seam between the gateway's always-there part (`core/`, `http/`)
 * and its optional features (`cluster/`, `push/`, `inspector/`, `a2a03/`, `mounts/`, `tree/`):
 * the feature types the core names (what an entry passes is
 * `GatewayFeatures`, http/_gateway.ts). Only types cross it, so an entry
 * that gives no feature (`@seam/gateway/lite`) bundles none of their code. `compat/gateway_folders_check.ts`
 * (`deno task check:folders`) proves that `core/` and `http/` reach the
 * feature folders through this file only, and that it exports types only.
 *
 * @module
 */
import type { PreparedPush, PushService } from "./push/_push.ts";
import type { InspectorRecord } from "./inspector/_inspector_record.ts";
import type { InspectorRoutes } from "./inspector/_inspector_routes.ts";
import type { MountRoutes } from "./mounts/_mounts.ts";
import type { DescendantTrees } from "./tree/_trees.ts";

export type {
  DescendantTrees,
  InspectorRecord,
  InspectorRoutes,
  MountRoutes,
  PreparedPush,
  PushService,
};
