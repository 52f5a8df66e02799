/**
 * A recording process's helper threads — V8's workers (concurrent marking, sweeping, compiling) and
 * libuv's thread pool — made the least urgent threads on the machine, so that the main thread wins
 * the CPU whenever it wants it. The moment that matters is the end of the `fdatasync` a recorded
 * model reply waits on (docs/recording-and-replay.md, "Durability"): the disk is done, and on a busy
 * machine the main thread would otherwise wait for a core behind a V8 worker's time slice. On 2
 * cores, without this, that wait rather than the disk makes most of the recorder's p99 per model
 * call (BENCHMARKS.md, "Recording overhead"). Nice 19, because nice 10 is not enough; and V8's
 * workers, because lowering only the thread pool does not help. Background threads given a lower CPU priority than the
 * foreground is what databases do too (RocksDB lowers its compaction threads'), and the helpers lose
 * nothing on an idle core.
 *
 * Only agentctl's own recording processes do this (`record`, and `proxy` when it records): a program
 * that records through the library keeps its threads as they are. Linux only: there a thread's nice
 * value is its own (setpriority on a thread id) and `/proc/self/task` lists the process's threads;
 * elsewhere `setpriority` takes process ids, and nothing is done. A child process the loop spawns
 * (a shell tool) is forked by the main thread and keeps its priority. A thread started later starts
 * at the priority of the thread that starts it: call this once the store is open (opening it starts
 * the thread pool, whose threads then start LevelDB's own).
 */
import { readdirSync } from 'node:fs';
import { constants, setPriority } from 'node:os';

/** The lowest priority there is (nice 19). */
const LOWEST = constants.priority.PRIORITY_LOW;

/**
 * Lower every thread of this process but the main one to the lowest priority. Returns how many
 * were lowered (0 where this is not done, or when none could be).
 */
export function lowerHelperThreads(platform: NodeJS.Platform = process.platform): number {
  if (platform !== 'linux') return 0;
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return 0;
  }
  let lowered = 0;
  for (const task of tasks) {
    const tid = Number(task);
    // The main thread's id is the process id.
    if (!Number.isInteger(tid) || tid === process.pid) continue;
    try {
      setPriority(tid, LOWEST);
      lowered++;
    } catch {
      // A thread that ended meanwhile: nothing to lower.
    }
  }
  return lowered;
}
