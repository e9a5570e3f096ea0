import { classifyFields } from './classify.js';
import { readSchema } from './schema.js';
import type { FieldReport } from './types.js';

/**
 * Classifies one property on its own (`credential | payment | personal | ordinary`), optionally
 * with the request message as context. Within a form, `auditForm` also uses the other fields
 * (a `pin_code` next to an address is a postal code; a `security code` next to a card number is
 * a card code). Never throws.
 *
 * @example
 *   classifyField('mot_de_passe', { type: 'string' }) // → { name: 'mot_de_passe', class: 'credential', reasons: ['name:mot de passe'] }
 */
export function classifyField(name: string, property: unknown, message?: string): FieldReport {
  try {
    const reading = readSchema({ type: 'object', properties: { [name]: property } });
    const [report] = classifyFields(reading.fields, message ?? null);
    return report ?? { name, class: 'ordinary', reasons: [] };
  } catch {
    return { name: String(name), class: 'credential', reasons: ['internal-error'] };
  }
}
