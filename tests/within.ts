// A bound for a test's wait: a test whose rule breaks fails naming what did not
// happen instead of hanging the run. The timer is cleared either way (sanitizers).

/** `promise`, or a failure naming `what` when it has not settled within `ms`. */
export async function within<T>(promise: Promise<T>, what: string, ms = 20_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
