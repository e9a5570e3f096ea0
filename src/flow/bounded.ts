/** Bounded tables: the insertion-ordered maps every book keeps its in-flight and remembered entries in. */

/** The first entry of every Bounded table, never removed (see Bounded). */
const SENTINEL: unique symbol = Symbol('bounded-table-sentinel');
/** `Bounded`'s sole entry when there is none. */
const NONE: unique symbol = Symbol('bounded-table-none');

/** The keys a Map takes for the same (SameValueZero): `===`, except that NaN is NaN. */
function sameKey(a: unknown, b: unknown): boolean {
  // biome-ignore lint/suspicious/noSelfCompare: NaN is the one value not equal to itself.
  return a === b || (a !== a && b !== b);
}

/**
 * An insertion-ordered map that forgets its oldest entries past `limit`. It holds one entry of its
 * own that is never removed: V8 shrinks (reallocates) a hash table each time it empties, and the
 * table of requests in flight empties after nearly every answer, so without it a plain request and
 * its answer cost two table allocations and the garbage collections they cause.
 *
 * While it holds a single entry, that entry is kept out of the map, in two fields (`#soleKey`,
 * `#soleValue`): a host that waits for each answer has one request in flight at a time, and then
 * tracking it costs two field writes instead of a hash insert and delete (and the rehash V8 does
 * every few of those). The next put of another key moves it into the map first, so the map's order
 * is the table's order; the map is empty while there is a sole entry.
 */
export class Bounded<K, V> {
  readonly #map = new Map<K | typeof SENTINEL, V>([[SENTINEL, undefined as V]]);
  #soleKey: K | typeof NONE = NONE;
  #soleValue: V | undefined = undefined;
  /**
   * Where eviction goes on from: a Map iterator skips deleted entries and sees those set after it
   * was made, and everything it has passed was evicted (a key set again keeps its place), so its
   * next entry is always the oldest. A fresh iterator from the start would walk over every entry
   * deleted since the table was last rehashed, about 2 µs a put under a flood. Dropped at the first
   * put that evicts nothing (see `put`).
   */
  #oldest: Iterator<[K | typeof SENTINEL, V]> | null = null;

  constructor(readonly limit: number) {}

  get size(): number {
    return this.#soleKey !== NONE ? 1 : this.#map.size - 1;
  }
  get(key: K): V | undefined {
    const sole = this.#soleKey;
    if (sole !== NONE) return sameKey(sole, key) ? this.#soleValue : undefined;
    const map = this.#map;
    return map.size === 1 ? undefined : map.get(key);
  }
  has(key: K): boolean {
    const sole = this.#soleKey;
    if (sole !== NONE) return sameKey(sole, key);
    const map = this.#map;
    return map.size !== 1 && map.has(key);
  }
  delete(key: K): boolean {
    const sole = this.#soleKey;
    if (sole === NONE) return this.#map.delete(key);
    if (!sameKey(sole, key)) return false;
    this.#soleKey = NONE;
    this.#soleValue = undefined;
    return true;
  }
  clear(): void {
    this.#map.clear();
    this.#map.set(SENTINEL, undefined as V);
    this.#soleKey = NONE;
    this.#soleValue = undefined;
    this.#oldest = null;
  }
  put(key: K, value: V, onEvict?: (value: V) => void): void {
    const map = this.#map;
    const sole = this.#soleKey;
    if (sole !== NONE) {
      // A key set again keeps its place (the sole entry is the newest anyway).
      if (sameKey(sole, key)) {
        this.#soleValue = value;
        return;
      }
      this.#unsole();
    } else if (map.size === 1 && this.limit >= 1) {
      this.#soleKey = key;
      this.#soleValue = value;
      this.#oldest = null;
      return;
    }
    map.set(key, value);
    if (map.size - 1 <= this.limit) {
      // Kept only while puts evict one after another: an idle iterator holds on to every table the
      // map is rehashed into after it (V8 chains them for it), which under steady traffic never ends.
      this.#oldest = null;
      return;
    }
    while (map.size - 1 > this.limit) {
      const [oldKey, oldValue] = this.#nextOldest();
      map.delete(oldKey);
      onEvict?.(oldValue);
    }
  }
  /** The sole entry, if any, moved into the map (which is empty while there is one). */
  #unsole(): void {
    const sole = this.#soleKey;
    if (sole === NONE) return;
    this.#map.set(sole, this.#soleValue as V);
    this.#soleKey = NONE;
    this.#soleValue = undefined;
  }
  /** The oldest entry (there is one: the table is over its limit). */
  #nextOldest(): [K, V] {
    for (let fresh = this.#oldest === null; ; fresh = true) {
      this.#oldest ??= this.#map.entries();
      for (let next = this.#oldest.next(); next.done !== true; next = this.#oldest.next())
        if (next.value[0] !== SENTINEL) return next.value as [K, V];
      // Only an iterator that had run to its end (it then sees nothing new) gets here: start over.
      this.#oldest = null;
      if (fresh) throw new Error('Bounded: no entry to evict');
    }
  }
  take(key: K): V | undefined {
    const sole = this.#soleKey;
    if (sole !== NONE) {
      const value = sameKey(sole, key) ? this.#soleValue : undefined;
      // As below: an entry whose value is `undefined` stays.
      if (value === undefined) return undefined;
      this.#soleKey = NONE;
      this.#soleValue = undefined;
      return value;
    }
    const map = this.#map;
    const value = map.get(key);
    if (value !== undefined) map.delete(key);
    return value;
  }
  *values(): IterableIterator<V> {
    for (const entry of this) yield entry[1];
  }
  /**
   * The entries in order, as a Map's iterator yields them, entries set or deleted during it
   * included: the sole entry is moved into the map first, and one put after the map emptied during
   * the iteration (into the sole entry then) comes after what the map held, as it would in a Map.
   */
  *[Symbol.iterator](): IterableIterator<[K, V]> {
    do {
      this.#unsole();
      for (const entry of this.#map) if (entry[0] !== SENTINEL) yield entry as [K, V];
    } while (this.#soleKey !== NONE);
  }
}
