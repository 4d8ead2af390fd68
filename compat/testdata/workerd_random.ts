// Fixture: an edge entry that draws a random value at module top level, which
// workerd refuses at global scope (the sandbox of check:edge imitates that).
const id = crypto.randomUUID();
export default {
  fetch(_request: Request): Response {
    return Response.json({ id });
  },
};
