// Fixture: starts I/O at module top level.
export const config: Promise<unknown> = fetch("https://example.com/config.json")
  .then((response) => response.json())
  .catch(() => undefined);
