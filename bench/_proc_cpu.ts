// CPU time of processes, read from /proc (Linux only): a figure a busy
// machine slows down but hardly changes.

const TICKS = 100; // USER_HZ on Linux

/** CPU seconds (user + system) process `pid` has used. */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS; // utime, stime
}

/** CPU seconds of every process named `postgres*` (the server and its backends). */
export async function postgresSeconds(): Promise<number> {
  let sum = 0;
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const comm = (await Deno.readTextFile(`/proc/${entry.name}/comm`)).trim();
      if (comm.startsWith("postgres")) sum += await cpuSeconds(Number(entry.name));
    } catch {
      // The process ended meanwhile.
    }
  }
  return sum;
}
