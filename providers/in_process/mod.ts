/**
 * The in-process driver shared by the `spawn` and `fork` providers: a child
 * agent of the same host, composed in a scope nested in its parent's, with
 * every start-time capability (persona, tool filter, structured output,
 * depth) and ownership that reaches the whole subtree.
 *
 * @module
 */
export {
  createInProcessProvider,
  type InProcessProviderOptions,
  PERSONA_SECTION,
} from "./driver.ts";
export { STRUCTURED_RESULT_TOOL } from "./_structured.ts";
