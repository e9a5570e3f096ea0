/**
 * The URL settings of a policy, read defensively (JS callers may pass a partial or malformed
 * policy), and the host allow lists as canonical host sets.
 */
import type { Policy } from '../policy/policy.js';

const DEFAULT_MAX_LENGTH = 2048;

export interface Settings {
  readonly development: boolean;
  readonly maxLength: number;
  readonly allowedHosts: readonly string[];
  readonly protectedDomains: readonly string[];
  readonly redirectHosts: readonly string[];
}

const NO_STRINGS: readonly string[] = Object.freeze([]);

function stringList(value: unknown): readonly string[] {
  if (!Array.isArray(value) || value.length === 0) return NO_STRINGS;
  return value.every((v) => typeof v === 'string') ? (value as string[]) : value.filter((v): v is string => typeof v === 'string');
}

// Keyed by a frozen policy whose `url` is frozen too (what `parsePolicy` hands out): its settings
// can no longer change, so one probe by the policy's identity answers.
const SETTINGS_CACHE = new WeakMap<object, Settings>();

// The last policy asked about: a caller checks many URLs under one policy.
let lastPolicy: Policy | undefined;
let lastSettings: Settings | undefined;

/**
 * Reads the URL settings defensively (JS callers may pass a partial or malformed policy); cached
 * per frozen policy, which `parsePolicy` produces, so a policy is read once.
 */
export function settingsOf(policy: Policy | undefined): Settings {
  if (policy === lastPolicy && policy !== undefined) return lastSettings!;
  if (typeof policy !== 'object' || policy === null) return readSettings(policy);
  let settings = SETTINGS_CACHE.get(policy);
  if (settings === undefined) {
    settings = readSettings(policy);
    const url = (policy as { url?: unknown }).url;
    if (!Object.isFrozen(policy) || typeof url !== 'object' || url === null || !Object.isFrozen(url)) return settings;
    SETTINGS_CACHE.set(policy, settings);
  }
  lastPolicy = policy;
  lastSettings = settings;
  return settings;
}

function readSettings(policy: Policy | undefined): Settings {
  const url = (policy as { url?: Partial<Policy['url']> } | undefined)?.url;
  const maxLength =
    typeof url?.maxLength === 'number' && Number.isFinite(url.maxLength) && url.maxLength > 0 ? url.maxLength : DEFAULT_MAX_LENGTH;
  return {
    development: policy?.profile === 'development',
    maxLength,
    allowedHosts: stringList(url?.allowedHosts),
    protectedDomains: stringList(url?.protectedDomains),
    redirectHosts: stringList(url?.redirectHosts),
  };
}

interface ListEntry<T> {
  readonly length: number;
  readonly value: T;
}

/**
 * A value derived from a policy list (`protectedDomains`, `allowedHosts`, `redirectHosts`),
 * built once per list and cached by the list's identity: `parsePolicy` hands out the same arrays
 * for every URL judged under a policy, so a call costs one WeakMap lookup however long the list
 * is, and nothing is keyed by joining the list. A list changed in place since (another length)
 * is read again.
 */
export function cachedByList<T>(
  cache: WeakMap<readonly string[], ListEntry<T>>,
  list: readonly string[],
  build: (list: readonly string[]) => T,
): T {
  const entry = cache.get(list);
  if (entry !== undefined && entry.length === list.length) return entry.value;
  const value = build(list);
  cache.set(list, { length: list.length, value });
  return value;
}

const HOST_SET_CACHE = new WeakMap<readonly string[], ListEntry<ReadonlySet<string>>>();

function buildHostSet(hosts: readonly string[]): ReadonlySet<string> {
  const out = new Set<string>();
  for (const h of hosts) {
    try {
      out.add(new URL(`https://${h.trim().toLowerCase()}/`).hostname);
    } catch {
      // An entry that is not a host name never matches.
    }
  }
  return out;
}

/** Domain-level allow lists (`allowedHosts`, `redirectHosts`) as canonical ASCII host sets, cached per list. */
export function hostSet(hosts: readonly string[]): ReadonlySet<string> {
  return cachedByList(HOST_SET_CACHE, hosts, buildHostSet);
}
