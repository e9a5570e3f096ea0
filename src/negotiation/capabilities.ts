import { isRecord } from '../protocol/jsonrpc.js';
import type { ElicitationMode } from '../protocol/wire.js';
import type { Policy } from '../policy/policy.js';

/** Which elicitation modes a side supports. */
export interface Modes {
  readonly form: boolean;
  readonly url: boolean;
}

export const NO_MODES: Modes = Object.freeze({ form: false, url: false });

/**
 * Reads `capabilities.elicitation` as spec 2025-11-25 defines it: absent → no modes; `{}` → form
 * only (backwards compatibility); otherwise the modes whose keys are present.
 */
export function declaredModes(capabilities: unknown): Modes {
  if (!isRecord(capabilities)) return NO_MODES;
  const elicitation = capabilities.elicitation;
  if (!isRecord(elicitation)) return NO_MODES;
  const form = elicitation.form !== undefined;
  const url = elicitation.url !== undefined;
  if (!form && !url) return { form: true, url: false };
  return { form, url };
}

/** The modes left after the policy has switched some off. */
export function allowedModes(declared: Modes, policy: Policy): Modes {
  return { form: declared.form && policy.form.enabled, url: declared.url && policy.url.enabled };
}

export function modesEqual(a: Modes, b: Modes): boolean {
  return a.form === b.form && a.url === b.url;
}

export function hasMode(modes: Modes, mode: ElicitationMode): boolean {
  return mode === 'form' ? modes.form : modes.url;
}

/**
 * The capabilities object the server should see: `elicitation` rewritten to the allowed modes
 * (keeping the host's settings inside each kept mode, e.g. `form.applyDefaults`), or removed
 * when no mode is left. Returns the input itself when nothing changes.
 */
export function narrowCapabilities(capabilities: Record<string, unknown>, declared: Modes, allowed: Modes): Record<string, unknown> {
  if (modesEqual(declared, allowed)) return capabilities;
  const { elicitation, ...rest } = capabilities;
  if (!allowed.form && !allowed.url) return rest;
  const original = isRecord(elicitation) ? elicitation : {};
  const narrowed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(original)) {
    if (key !== 'form' && key !== 'url') narrowed[key] = value;
  }
  if (allowed.form) narrowed.form = isRecord(original.form) ? original.form : {};
  if (allowed.url) narrowed.url = isRecord(original.url) ? original.url : {};
  return { ...rest, elicitation: narrowed };
}
