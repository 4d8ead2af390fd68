// Fixture: a well-behaved edge entry; timers and randomness only inside the handler.
export default {
  fetch(_request: Request): Response {
    return Response.json({ id: crypto.randomUUID() });
  },
};
