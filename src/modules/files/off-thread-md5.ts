import { Worker } from 'node:worker_threads';

/**
 * Uploads declared at least this large are md5-hashed on a thread of their own instead of the
 * main thread. md5 runs at about 600 MB/s here, so a 100 MB upload spent about 170 ms of its
 * ~250 ms of main-thread CPU hashing, in the same thread that reads the socket: the upload's
 * wall time was bound by that one thread (docs/benchmarks.md, Files, "100 MB uploads"). Off the
 * main thread the hashing overlaps with receiving. Smaller uploads stay on the main thread:
 * each batch's message and copy cost more than their hashing saves, and a 1 MB upload's
 * digest would wait for one more round trip.
 */
export const OFF_THREAD_MD5_MIN_BYTES = 16 * 1024 * 1024;

/** Messages from md5-thread.mjs. */
type ThreadAnswer = { id: number; hashed: number } | { id: number; md5: string };

interface Pending {
  /** Bytes posted and not yet hashed. */
  inFlight: number;
  /** Called (once each) when inFlight drops to `below` or under. */
  drained: { below: number; f: () => void }[];
  digest?: { resolve: (md5: string) => void; reject: (err: Error) => void };
}

/**
 * One md5 computed on the shared md5 thread: `update` posts a copy of the chunks (the caller
 * keeps writing its own), `whenBelow` lets the caller hold the body while too many bytes wait
 * for the thread (flat memory), `digest` resolves once all posted chunks were hashed.
 */
export interface RemoteMd5 {
  update(chunks: readonly Buffer[]): void;
  /** Calls `f` once at most `bytes` posted bytes are still unhashed (at once when so). */
  whenBelow(bytes: number, f: () => void): void;
  digest(): Promise<string>;
  /** Forgets the hash (a failed upload); nothing may be called after. */
  drop(): void;
}

/**
 * The process's md5 thread: started with the first large upload, keeping the process alive only
 * while it has hashes to compute, started again if it ever dies (the uploads it was hashing fail).
 */
class Md5Thread {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./md5-thread.mjs', import.meta.url), { execArgv: [] });
    worker.on('message', (m: ThreadAnswer) => this.answer(m));
    const died = (err: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const p of this.pending.values()) {
        p.digest?.reject(err);
        p.inFlight = 0;
        for (const d of p.drained.splice(0)) d.f();
      }
      this.pending.clear();
    };
    worker.on('error', died);
    worker.on('exit', (code) => died(new Error(`the md5 thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }

  /** The thread keeps the process alive only while some hash is open (after the listeners: adding one refs it). */
  private forget(id: number): boolean {
    const had = this.pending.delete(id);
    if (had && !this.pending.size) this.worker?.unref();
    return had;
  }

  private answer(m: ThreadAnswer): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    if ('md5' in m) {
      this.forget(m.id);
      p.digest?.resolve(m.md5);
      return;
    }
    p.inFlight -= m.hashed;
    const ready = p.drained.filter((d) => p.inFlight <= d.below);
    p.drained = p.drained.filter((d) => p.inFlight > d.below);
    for (const d of ready) d.f();
  }

  open(): RemoteMd5 {
    const worker = this.thread();
    const id = this.nextId++;
    const p: Pending = { inFlight: 0, drained: [] };
    if (!this.pending.size) worker.ref();
    this.pending.set(id, p);
    return {
      update: (chunks) => {
        let bytes = 0;
        for (const c of chunks) bytes += c.length;
        p.inFlight += bytes;
        // Copied by postMessage: the chunks stay the caller's, for its writes.
        worker.postMessage({ id, chunks });
      },
      whenBelow: (bytes, f) => {
        if (p.inFlight <= bytes || !this.pending.has(id)) f();
        else p.drained.push({ below: bytes, f });
      },
      digest: () => new Promise<string>((resolve, reject) => {
        if (!this.pending.has(id)) return reject(new Error('the md5 thread exited'));
        p.digest = { resolve, reject };
        worker.postMessage({ id, end: true });
      }),
      drop: () => {
        // Waiters are forgotten, not called: the sink that waited is being destroyed.
        if (!this.forget(id)) return;
        worker.postMessage({ id, drop: true });
      },
    };
  }
}

const shared = new Md5Thread();

/** A new md5 on the process's md5 thread (started on first use). */
export function remoteMd5(): RemoteMd5 {
  return shared.open();
}
