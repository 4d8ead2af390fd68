// Fixture: draws a random value at module top level, and hides the failure.
let id = "fixed";
try {
  id = crypto.randomUUID();
} catch {
  // swallowed: the check must still see the call
}
export const instanceId: string = id;
