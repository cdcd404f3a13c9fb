// Types of @fastify/rate-limit's in-memory store, which rate-limit.ts uses directly (the package
// ships types for the plugin only). The store is the plugin's own: a fixed window per key in an
// LRU map of `cache` keys.
declare module '@fastify/rate-limit/store/LocalStore.js' {
  interface LocalStore {
    incr(key: string, callback: (error: Error | null, result: { current: number; ttl: number }) => void, timeWindow: number, max: number): void;
  }
  const LocalStore: new (continueExceeding: boolean, exponentialBackoff: boolean, cache?: number) => LocalStore;
  export default LocalStore;
}
